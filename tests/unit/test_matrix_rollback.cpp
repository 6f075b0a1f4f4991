// `matrix rollback` pins every component its row was grouped by (docs/matrix.md): one the
// row's records do not state is pinned `absent`, so `matrix check` of the tested rollback path
// can never match a known-bad row that adds, say, a Kubernetes or GPU Operator version.
#include <gtest/gtest.h>

#include "core/base/input_error.hpp"
#include "core/fleet/matrix_check.hpp"
#include "core/fleet/matrix_rollback.hpp"
#include "record_builders.hpp"

namespace gpuqual {
namespace {

RunRecord rec(const std::string& node, const std::string& day, bool on_kubernetes) {
  RunRecord r = testing::make_record(2);
  r.node.k8s_node_name = node;
  r.run_id = node + "-" + day;
  r.started_at = "2026-11-" + day + "T12:00:00Z";
  r.hardware_class.slug = "h200-sxm-141gb";
  for (auto& g : r.gpus) g.uuid = "GPU-" + node + "-" + std::to_string(g.index);
  if (on_kubernetes) {
    StackInventory s;
    s.k8s_kubelet_version = StackFact::read("v1.30.2");
    s.platform["gpu-operator"] = "v24.9.2";
    r.node.stack = s;
  }
  return r;
}

// The same driver, CUDA, kernel, OS and VBIOS twice: known-good off Kubernetes, known-bad on it.
Matrix fleet() {
  MatrixBuilder b(2);
  b.add(observe_record(rec("a", "20", false), Outcome::pass));
  b.add(observe_record(rec("b", "20", false), Outcome::pass));
  b.add(observe_record(rec("a", "25", true), Outcome::fail));
  return b.finish();
}

TEST(MatrixRollback, PinsTheComponentsItsRowDoesNotStateAsAbsent) {
  const Matrix m = fleet();
  ASSERT_EQ(m.rows.size(), 2u);
  const auto rb = rollback_for(m, "h200-sxm-141gb");
  ASSERT_TRUE(rb);
  const auto rules = rb->target.rules_for("h200-sxm-141gb");
  ASSERT_TRUE(rules.count("kubernetes"));
  EXPECT_EQ(rules.at("kubernetes").match, TargetMatch::absent);
  EXPECT_EQ(rules.at("gpu_operator").match, TargetMatch::absent);
  EXPECT_EQ(rules.at("driver_version").match, TargetMatch::exact);
  // Printed and loaded back, it still says so.
  const Target back = parse_target_yaml(target_to_yaml(rb->target, rb->comment), "rollback.yaml");
  EXPECT_EQ(back.rules_for("h200-sxm-141gb").at("kubernetes").match, TargetMatch::absent);
}

TEST(MatrixRollback, CheckOfTheRollbackTargetDoesNotMatchTheKnownBadRow) {
  const Matrix m = fleet();
  const auto rb = rollback_for(m, "h200-sxm-141gb");
  ASSERT_TRUE(rb);
  for (const auto& r : m.rows) {
    const bool on_k8s = r.component("kubernetes") != nullptr;
    EXPECT_EQ(r.state, on_k8s ? MatrixState::known_bad : MatrixState::known_good) << r.why;
    EXPECT_EQ(row_on_target(r, rb->target.rules_for("h200-sxm-141gb")), !on_k8s);
  }
  const PlatformRules rules = load_platform_rules(std::string(GPUQUAL_SOURCE_DIR) + "/baselines");
  const MatrixCheck c = check_target(rb->target, &m, rules, {"h200-sxm-141gb"}, "2025-12-01");
  ASSERT_EQ(c.classes.size(), 1u);
  EXPECT_EQ(c.classes[0].state, "known-good") << c.classes[0].line;
  EXPECT_EQ(c.exit_code, 0) << c.classes[0].line;
}

TEST(MatrixRollback, ARecordThatStatesAnAbsentComponentIsOffTarget) {
  Target t;
  t.classes["h200-sxm-141gb"]["kubernetes"] = ComponentRule{TargetMatch::absent, ""};
  EXPECT_TRUE(judge_target(rec("a", "20", false), t).off_target.empty());
  EXPECT_TRUE(judge_target(rec("a", "20", false), t).unknown.empty());  // not stating it is the match
  const TargetJudgement j = judge_target(rec("a", "20", true), t);
  ASSERT_EQ(j.off_target.size(), 1u);
  EXPECT_NE(j.off_target[0].finding.detail.find("kubernetes: expected absent"), std::string::npos)
      << j.off_target[0].finding.detail;
  EXPECT_FALSE(component_matches(ComponentRule{TargetMatch::absent, ""}, "1.30.2"));
}

TEST(MatrixRollback, AbsentIsStrictInATargetFile) {
  const std::string head = "schema: gpuqual.target/v1\ncomponents:\n";
  EXPECT_NO_THROW(parse_target_yaml(head + "  kubernetes: {absent: true}\n", "t.yaml"));
  for (const char* bad :
       {"  kubernetes: {absent: false}\n", "  kubernetes: {absent: true, exact: \"1.30\"}\n",
        "  kubernetes: {absent: \"yes\"}\n"})
    EXPECT_THROW(parse_target_yaml(head + bad, "t.yaml"), InputError) << bad;
}

}  // namespace
}  // namespace gpuqual
