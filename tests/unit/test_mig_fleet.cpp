// How plan and matrix see MIG nodes (docs/mig.md "Classes and floors", docs/plan.md,
// docs/matrix.md): a single-strategy node is of its slice class, never `unknown`; a run that names
// no GPU never makes a row known-bad; a rollback target always checks known-good; a MIG record
// counts in matrix build as compare judges it. Through nodes_from_json, make_plan, MatrixBuilder,
// rollback_for with check_target, and build_matrix over a record file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/baseline/class_baselines.hpp"
#include "core/fleet/matrix.hpp"
#include "core/fleet/matrix_check.hpp"
#include "core/fleet/matrix_rollback.hpp"
#include "core/fleet/matrix_stream.hpp"
#include "core/fleet/plan.hpp"
#include "core/fleet/plan_cluster_json.hpp"
#include "core/fleet/plan_policy.hpp"
#include "core/fleet/plan_verdicts.hpp"
#include "core/judge/compare.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/record_io.hpp"
#include "record_builders.hpp"

namespace gpuqual {
namespace {

using testing::make_metric;
using testing::make_record;

std::string text_of(const Verdict& v) {
  std::string out = v.summary;
  for (const auto& why : v.reasons) out += "\n  " + why;
  return out;
}

// A Node as `kubectl get nodes -o json` shows it, with GFD's labels of the MIG single strategy.
nlohmann::json single_strategy_node(const std::string& name, const std::string& product,
                                    const std::string& memory, int mig_devices) {
  nlohmann::json n = {{"apiVersion", "v1"},
                      {"kind", "Node"},
                      {"metadata",
                       {{"name", name},
                        {"labels",
                         {{"kubernetes.io/hostname", name},
                          {"nvidia.com/mig.strategy", "single"},
                          {"nvidia.com/gpu.product", product},
                          {"nvidia.com/gpu.memory", memory},
                          {"nvidia.com/gpu.count", std::to_string(mig_devices)}}}}},
                      {"status",
                       {{"allocatable", {{"nvidia.com/gpu", std::to_string(mig_devices)}}},
                        {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  return n;
}

TEST(MigPlan, SingleStrategyNodesAreOfTheirSliceClassNeverUnknown) {
  const nlohmann::json list = {
      {"kind", "List"},
      {"items",
       {single_strategy_node("h100-mig", "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "9984", 56),
        single_strategy_node("a100-mig", "NVIDIA-A100-SXM4-40GB-MIG-1g.10gb", "9728", 32),
        single_strategy_node("b200-mig", "NVIDIA-B200-MIG-1g.23gb", "23040", 56),
        single_strategy_node("odd-mig", "NVIDIA-X9-MIG-1g.10gb", "9984", 7)}}};
  const std::vector<ClusterNode> nodes = nodes_from_json(list, "nodes.json");
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].hardware_class, "h100-sxm-80gb-mig-1g.10gb");
  EXPECT_EQ(nodes[1].hardware_class, "a100-sxm-40gb-mig-1g.10gb");
  EXPECT_EQ(nodes[2].hardware_class, "b200-sxm-180gb-mig-1g.23gb");  // one memory size: the name says it
  EXPECT_EQ(nodes[3].hardware_class, "unknown");                     // a product gpuqual does not know
  // The plan takes the slice class as any class: the policy names it and the node is planned.
  Cluster c;
  c.nodes = {nodes[0]};
  const PlanPolicy policy = parse_plan_policy_yaml(
      "schema: gpuqual.plan/v1\nclasses:\n  h100-sxm-80gb-mig-1g.10gb: {min_schedulable_gpus: 0, "
      "max_nodes_out: 1}\n",
      "policy.yaml");
  const Plan plan = make_plan(c, policy, {});
  ASSERT_EQ(plan.nodes.size(), 1u);
  EXPECT_EQ(plan.nodes[0].hardware_class, "h100-sxm-80gb-mig-1g.10gb");
  EXPECT_EQ(plan.nodes[0].state, NodeState::planned);
  EXPECT_EQ(plan.nodes[0].gpus, 56);
}

// A product gpuqual does not know leaves the labels' class unknown: the node then takes the class of
// its records (a verdict states it), as a slice class when the labels describe a MIG device.
TEST(MigPlan, ANodeTheLabelsLeaveUnknownTakesItsRecordsClass) {
  const nlohmann::json list = {{"kind", "List"},
                               {"items",
                                {single_strategy_node("odd-mig", "NVIDIA-X9-MIG-1g.10gb", "9984", 7),
                                 single_strategy_node("odd-whole", "NVIDIA-X9", "81920", 8),
                                 single_strategy_node("no-records", "NVIDIA-X9-MIG-1g.10gb", "9984", 7)}}};
  std::vector<ClusterNode> nodes = nodes_from_json(list, "nodes.json");
  for (const auto& n : nodes) ASSERT_EQ(n.hardware_class, "unknown") << n.name;
  Verdict gate;
  gate.kind = "gate";
  for (const char* name : {"odd-mig", "odd-whole"}) {
    Verdict n;
    n.kind = "compare";
    n.hostname = name;
    n.hardware_class = "x9-80gb";  // the records' class (--class: gpuqual does not know the product)
    gate.nodes.push_back(n);
  }
  NodeClasses classes;
  add_node_classes(gate, classes);
  apply_record_classes(nodes, classes);
  EXPECT_EQ(nodes[0].hardware_class, "x9-80gb-mig-1g.10gb");
  EXPECT_EQ(nodes[1].hardware_class, "x9-80gb");
  EXPECT_EQ(nodes[2].hardware_class, "unknown");
}

// Records of one class, by node and day, with the given driver and VBIOS per GPU.
RunRecord fleet_record(const std::string& node, const std::string& day, const std::string& driver,
                       const std::vector<std::string>& vbios, bool name_gpus = true) {
  RunRecord r = make_record(static_cast<int>(vbios.size()));
  r.node.k8s_node_name = node;
  r.node.hostname = node;
  r.run_id = node + "-" + day + "-" + driver;
  r.started_at = "2026-11-" + day + "T12:00:00Z";
  r.node.driver_version = driver;
  for (auto& g : r.gpus) {
    g.vbios = vbios[static_cast<std::size_t>(g.index)];
    g.uuid = name_gpus ? "GPU-" + node + "-" + std::to_string(g.index) : unread_gpu_uuid(g);
  }
  return r;
}

const MatrixRow* row_with_driver(const Matrix& m, const std::string& driver) {
  for (const auto& r : m.rows) {
    const std::string* d = r.component("driver_version");
    if (d && *d == driver) return &r;
  }
  return nullptr;
}

// A run that names no GPU is placed by its node name alone, which another machine can carry: a
// pass and a later failure under one such name never make the failing stack known-bad.
TEST(MigMatrix, ANodeWhoseRunsNameNoGpuNeverMakesARowKnownBad) {
  MatrixBuilder b(1);
  b.add(observe_record(fleet_record("n1", "20", "570.133.20", {"v1"}, false), Outcome::pass));
  b.add(observe_record(fleet_record("n1", "25", "575.51.03", {"v1"}, false), Outcome::fail));
  const Matrix m = b.finish();
  const MatrixRow* failed = row_with_driver(m, "575.51.03");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->state, MatrixState::mixed) << failed->why;
  // The same with the GPUs named: one machine, passed then failed: the stack is blamed.
  MatrixBuilder named(1);
  named.add(observe_record(fleet_record("n1", "20", "570.133.20", {"v1"}), Outcome::pass));
  named.add(observe_record(fleet_record("n1", "25", "575.51.03", {"v1"}), Outcome::fail));
  const Matrix nm = named.finish();
  EXPECT_EQ(row_with_driver(nm, "575.51.03")->state, MatrixState::known_bad);
  // An unnamed pass does not blame a named machine's failure either.
  MatrixBuilder half(1);
  half.add(observe_record(fleet_record("n1", "20", "570.133.20", {"v1"}, false), Outcome::pass));
  half.add(observe_record(fleet_record("n1", "25", "575.51.03", {"v1"}), Outcome::fail));
  const Matrix hm = half.finish();
  EXPECT_EQ(row_with_driver(hm, "575.51.03")->state, MatrixState::mixed);
}

// The newest known-good row ran two VBIOS versions, so its target cannot pin one: the prefix they
// share would also match a known-bad row, so the rollback takes the older known-good row, whose
// target `matrix check` finds known-good.
TEST(MigMatrix, RollbackTargetAlwaysChecksKnownGood) {
  const std::string drv = "570.133.20";
  MatrixBuilder b(2);
  for (const char* n : {"c", "d"})
    b.add(observe_record(fleet_record(n, "10", drv, {"95.00.00.00.01", "95.00.00.00.01"}), Outcome::pass));
  for (const char* n : {"a", "b"})
    b.add(observe_record(fleet_record(n, "20", drv, {"96.00.99.00.01", "96.00.99.00.02"}), Outcome::pass));
  b.add(observe_record(fleet_record("a", "25", drv, {"96.00.99.00.03", "96.00.99.00.03"}), Outcome::fail));
  const Matrix m = b.finish();
  ASSERT_EQ(m.rows.size(), 3u);
  const auto rb = rollback_for(m, "h200-sxm-141gb");
  ASSERT_TRUE(rb);
  EXPECT_EQ(*rb->row->component("vbios"), "95.00.00.00.01");
  const PlatformRules rules = load_platform_rules(std::string(GPUQUAL_SOURCE_DIR) + "/baselines");
  const MatrixCheck c = check_target(rb->target, &m, rules, {"h200-sxm-141gb"}, "2025-12-01");
  ASSERT_EQ(c.classes.size(), 1u);
  EXPECT_EQ(c.classes[0].state, "known-good") << c.classes[0].line;
  // Without the older row there is no rollback target that checks: none is given.
  MatrixBuilder newer(2);
  for (const char* n : {"a", "b"})
    newer.add(
        observe_record(fleet_record(n, "20", drv, {"96.00.99.00.01", "96.00.99.00.02"}), Outcome::pass));
  newer.add(
      observe_record(fleet_record("a", "25", drv, {"96.00.99.00.03", "96.00.99.00.03"}), Outcome::fail));
  EXPECT_FALSE(rollback_for(newer.finish(), "h200-sxm-141gb"));
  // Two VBIOS versions and no known-bad row they would match: pinned by their shared prefix.
  MatrixBuilder clean(2);
  for (const char* n : {"a", "b"})
    clean.add(
        observe_record(fleet_record(n, "20", drv, {"96.00.99.00.01", "96.00.99.00.02"}), Outcome::pass));
  const Matrix cm = clean.finish();
  const auto pinned = rollback_for(cm, "h200-sxm-141gb");
  ASSERT_TRUE(pinned);
  const auto vbios = pinned->target.rules_for("h200-sxm-141gb").at("vbios");
  EXPECT_EQ(vbios.match, TargetMatch::prefix);
  EXPECT_EQ(vbios.value, "96.00.99.00.0");
  EXPECT_EQ(check_target(pinned->target, &cm, rules, {"h200-sxm-141gb"}, "2025-12-01").classes[0].state,
            "known-good");
}

// matrix build counts a MIG record as compare judges it: its slices against their slice classes.
TEST(MigMatrix, AMigRecordCountsAsCompareJudgesIt) {
  RunRecord r = make_record(2);  // labelled nvidia.com/gpu.count=2
  MigState mig;
  mig.current = mig.pending = true;
  for (unsigned k = 0; k < 2; ++k) {
    MigGpuInstance gi;
    gi.id = k + 1;
    gi.profile = "1g.18gb";
    gi.memory_bytes = 17ull << 30;
    gi.placement_start = k;
    gi.placement_size = 1;
    gi.compute_instances.push_back(MigComputeInstance{0, "1g.18gb", k == 0 ? "MIG-a" : "MIG-b", 16});
    mig.gpu_instances.push_back(gi);
  }
  r.gpus[1].mig = mig;
  auto passed = [](const std::string& name) {
    CheckResult c;
    c.name = name;
    c.status = Status::pass;
    return c;
  };
  CheckResult health = passed("health");
  for (int g : {0, 1}) health.per_gpu.push_back(GpuCheckStatus{g, Status::pass, "", ""});
  CheckResult gemm = passed("gemm"), hbm = passed("hbm"), pcie = passed("pcie");
  gemm.metrics.push_back(make_metric("gemm.bf16.n4096.tflops", "TFLOP/s", {700, 700, 700}, 0));
  hbm.metrics.push_back(make_metric("hbm.copy.gbps", "GB/s", {4300, 4300, 4300}, 0));
  pcie.metrics.push_back(make_metric("pcie.h2d.gbps", "GB/s", {55, 55, 55}, 0));
  for (const char* dev : {"MIG-a", "MIG-b"}) {
    for (auto [c, name, unit, v] : {std::tuple{&gemm, "gemm.bf16.n4096.tflops", "TFLOP/s", 100.0},
                                    std::tuple{&hbm, "hbm.copy.gbps", "GB/s", 500.0},
                                    std::tuple{&pcie, "pcie.h2d.gbps", "GB/s", 50.0}}) {
      Metric m = make_metric(name, unit, {v, v, v, v, v}, 1);
      m.mig_device = dev;
      c->metrics.push_back(m);
    }
  }
  r.checks = {health, gemm, hbm, pcie};
  const std::string dir = std::string(GPUQUAL_SOURCE_DIR) + "/baselines";
  AutoBaselines baselines(dir);
  const Verdict v = compare_with_baselines(r, baselines, CompareOptions{});
  ASSERT_EQ(v.outcome, Outcome::pass) << text_of(v);
  const auto path =
      std::filesystem::temp_directory_path() / ("gpuqual-mig-matrix-" + std::to_string(::getpid()) + ".json");
  write_record(path.string(), r);
  AutoBaselines source(dir);
  const MatrixBuildResult built = build_matrix({path.string()}, source, 1, 1);
  std::filesystem::remove(path);
  ASSERT_EQ(built.matrix.rows.size(), 1u);
  EXPECT_EQ(built.matrix.rows[0].runs_passed, 1) << built.matrix.rows[0].why;
  EXPECT_EQ(built.matrix.rows[0].state, MatrixState::known_good) << built.matrix.rows[0].why;
}

}  // namespace
}  // namespace gpuqual
