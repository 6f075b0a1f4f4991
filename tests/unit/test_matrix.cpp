// The matrix model (core/matrix.hpp): row states as the issue defines them, de-duplication,
// determinism, and the gpuqual.matrix/v1 YAML/JSON round trip with strict loading.
#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "core/matrix.hpp"
#include "core/matrix_io.hpp"
#include "record_builders.hpp"

namespace gpuqual {
namespace {

MatrixObservation obs(const std::string& node, const std::string& driver, const std::string& day, Outcome o,
                      const std::string& cls = "h200-sxm-141gb") {
  RunRecord r = testing::make_record(2);
  r.node.k8s_node_name = node;
  r.node.driver_version = driver;
  r.run_id = node + "-" + driver + "-" + day;
  r.started_at = "2026-11-" + day + "T12:00:00Z";
  r.hardware_class.slug = cls;
  return observe_record(r, o);
}

const MatrixRow& row_with(const Matrix& m, const std::string& driver, const std::string& cls = "h200-sxm-141gb") {
  for (const auto& r : m.rows) {
    if (r.hardware_class == cls && r.component("driver_version") && *r.component("driver_version") == driver) return r;
  }
  throw std::runtime_error("no row for " + driver);
}

TEST(MatrixStack, ComponentsAreTargetNamesInOrderWithoutGpuqualsOwnLibraries) {
  RunRecord r = testing::make_record(2);
  r.gpus[1].vbios = "96.00.AA.00.01";
  r.node.cublas_version = "13.0.0";
  const StackComponents s = matrix_components(r);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0], (std::pair<std::string, std::string>{"driver_version", "570.133.20"}));
  EXPECT_EQ(s[1].first, "cuda_driver_version");
  EXPECT_EQ(s[4], (std::pair<std::string, std::string>{"vbios", "96.00.99.00.01,96.00.AA.00.01"}));
  for (const auto& [n, v] : s) EXPECT_TRUE(n != "cublas_version" && n != "cuda_runtime_version") << n;
}

// The stack inventory's kubelet version (Node status.nodeInfo) and --platform gpu-operator=...
// are the target's kubernetes and gpu_operator components, without the "v" of their tags.
TEST(MatrixStack, KubernetesAndGpuOperatorComeFromTheStackInventory) {
  RunRecord r = testing::make_record(1);
  StackInventory stack;
  stack.k8s_kubelet_version = StackFact::read("v1.33.4");
  stack.platform["gpu-operator"] = "v25.10.0";
  r.node.stack = stack;
  const StackComponents s = matrix_components(r);
  ASSERT_EQ(s.size(), 7u);
  EXPECT_EQ(s[4], (std::pair<std::string, std::string>{"kubernetes", "1.33.4"}));
  EXPECT_EQ(s[5], (std::pair<std::string, std::string>{"gpu_operator", "25.10.0"}));
  EXPECT_EQ(s[6].first, "vbios");
  // Unread (a run outside Kubernetes): left out, not an empty value.
  r.node.stack->k8s_kubelet_version = StackFact::unread("no Node object");
  EXPECT_EQ(matrix_components(r).size(), 6u);
}

TEST(MatrixStack, ValidatedImagesAreThePassingContainerProbes) {
  RunRecord r = testing::make_record(1);
  CheckResult c;
  c.name = "container_probe";
  c.attributes = {{"train.image", "reg/train:2.4"}, {"train.status", "pass"},
                  {"infer.image", "reg/infer:1.0"}, {"infer.status", "fail"}};
  r.checks.push_back(c);
  EXPECT_EQ(validated_images(r), std::vector<std::string>{"reg/train:2.4"});
}

TEST(MatrixBuild, StatesFollowTheIssueDefinitions) {
  MatrixBuilder b(2);
  // 550: three nodes pass -> known-good.
  for (const char* n : {"a", "b", "c"}) b.add(obs(n, "550.90.07", "20", Outcome::pass));
  // 570: a passes, b warns (a pass), c fails after passing on 550 -> known-bad.
  b.add(obs("a", "570.133.20", "25", Outcome::pass));
  b.add(obs("b", "570.133.20", "25", Outcome::warn));
  b.add(obs("c", "570.133.20", "26", Outcome::fail));
  // 575: d fails, never seen before; e passes -> mixed.
  b.add(obs("d", "575.57.08", "27", Outcome::fail));
  b.add(obs("e", "575.57.08", "27", Outcome::pass));
  // 580: one passing node, one inconclusive -> unqualified.
  b.add(obs("f", "580.95.05", "28", Outcome::pass));
  b.add(obs("g", "580.95.05", "28", Outcome::inconclusive));
  const Matrix m = b.finish();
  ASSERT_EQ(m.rows.size(), 4u);
  EXPECT_EQ(row_with(m, "550.90.07").state, MatrixState::known_good);
  EXPECT_EQ(row_with(m, "550.90.07").nodes_passed, (std::vector<std::string>{"a", "b", "c"}));
  const MatrixRow& bad = row_with(m, "570.133.20");
  EXPECT_EQ(bad.state, MatrixState::known_bad) << bad.why;
  EXPECT_NE(bad.why.find("c ("), std::string::npos) << bad.why;
  EXPECT_NE(bad.why.find("driver_version 550.90.07 → 570.133.20"), std::string::npos) << bad.why;
  EXPECT_EQ(bad.runs_passed, 2);
  EXPECT_EQ(bad.runs_failed, 1);
  EXPECT_EQ(row_with(m, "575.57.08").state, MatrixState::mixed);
  const MatrixRow& unq = row_with(m, "580.95.05");
  EXPECT_EQ(unq.state, MatrixState::unqualified);
  EXPECT_EQ(unq.runs_inconclusive, 1);
  EXPECT_EQ(unq.first_seen, "2026-11-28T12:00:00Z");
}

TEST(MatrixBuild, AFailureBeforeThePassElsewhereIsNotBlamedOnTheStack) {
  MatrixBuilder b(1);
  b.add(obs("c", "570.133.20", "20", Outcome::fail));  // failed first ...
  b.add(obs("c", "550.90.07", "25", Outcome::pass));   // ... then passed on another stack
  const Matrix m = b.finish();
  EXPECT_EQ(row_with(m, "570.133.20").state, MatrixState::mixed);
  EXPECT_EQ(row_with(m, "550.90.07").state, MatrixState::known_good);
}

TEST(MatrixBuild, APassOnAnotherClassDoesNotMakeAStackKnownBad) {
  MatrixBuilder b(1);
  b.add(obs("x", "550.90.07", "20", Outcome::pass, "h100-sxm-80gb"));
  b.add(obs("x", "570.133.20", "25", Outcome::fail));
  EXPECT_EQ(row_with(b.finish(), "570.133.20").state, MatrixState::mixed);
}

TEST(MatrixBuild, MinNodesAndTheSameRunTwice) {
  MatrixBuilder b(3);
  b.add(obs("a", "570.133.20", "20", Outcome::pass));
  b.add(obs("a", "570.133.20", "20", Outcome::pass));  // the same run id: one run
  b.add(obs("b", "570.133.20", "21", Outcome::pass));
  Matrix m = b.finish();
  EXPECT_EQ(m.records, 2u);
  EXPECT_EQ(m.rows.at(0).state, MatrixState::unqualified);
  EXPECT_NE(m.rows.at(0).why.find("fewer than the 3"), std::string::npos);
}

TEST(MatrixBuild, InputOrderDoesNotChangeTheBytes) {
  std::vector<MatrixObservation> all = {obs("a", "550.90.07", "20", Outcome::pass), obs("b", "550.90.07", "21", Outcome::pass),
                                        obs("a", "570.133.20", "25", Outcome::fail), obs("z", "570.133.20", "25", Outcome::pass)};
  MatrixBuilder one, two;
  for (const auto& o : all) one.add(o);
  for (auto it = all.rbegin(); it != all.rend(); ++it) two.add(*it);
  EXPECT_EQ(matrix_to_yaml(one.finish()), matrix_to_yaml(two.finish()));
}

TEST(MatrixIo, YamlAndJsonLoadBackToTheSameMatrix) {
  MatrixBuilder b(2);
  b.add(obs("a", "550.90.07", "20", Outcome::pass));
  b.add(obs("yes", "550.90.07", "21", Outcome::pass));  // a node YAML would read as a boolean
  const Matrix m = b.finish();
  const std::string yaml = matrix_to_yaml(m);
  const Matrix y = parse_matrix(yaml, "m.yaml");
  const Matrix j = parse_matrix(matrix_to_json(m), "m.json");
  EXPECT_EQ(matrix_to_json(y), matrix_to_json(m));
  EXPECT_EQ(matrix_to_json(j), matrix_to_json(m));
  EXPECT_EQ(y.rows.at(0).nodes_passed, (std::vector<std::string>{"a", "yes"}));
  EXPECT_EQ(y.rows.at(0).state, MatrixState::known_good);
}

TEST(MatrixIo, StrictLoaderNamesFileLineAndPath) {
  MatrixBuilder b(1);
  b.add(obs("a", "550.90.07", "20", Outcome::pass));
  const std::string good = matrix_to_yaml(b.finish());
  struct Case {
    std::string from, to, expect;
  };
  const std::vector<Case> cases = {
      {"\"known-good\"", "\"great\"", "$.rows[0].state: unknown state \"great\""},
      {"schema: \"gpuqual.matrix/v1\"", "schema: \"gpuqual.matrix/v9\"", "unsupported schema"},
      {"min_nodes: 1", "min_nodes: 0", "$.min_nodes"},
      {"    first_seen:", "    colour: \"red\"\n    first_seen:", "colour"},
  };
  for (const auto& c : cases) {
    std::string text = good;
    const auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    try {
      parse_matrix(text, "m.yaml");
      ADD_FAILURE() << "accepted: " << c.to;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("m.yaml: line "), std::string::npos) << what;
      EXPECT_NE(what.find(c.expect), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace gpuqual
