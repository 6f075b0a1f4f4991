// What earns a PASS (docs/compare.md, "What earns a PASS").
// Every baseline says what a class must measure (the floors and built baselines require health,
// gemm, hbm and pcie on every GPU, and take the GPU count from the node); a record lacking a check
// its suite or baseline requires, or whose health did not read every GPU, is inconclusive; the
// expected GPU count is the largest of every source and unknown is inconclusive; `complete:
// false` never passes; baseline build leaves a partial record out and never weakens for one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/base/input_error.hpp"
#include "core/baseline/baseline.hpp"
#include "core/fleet/baseline_build.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/suite_requirements.hpp"
#include "record_builders.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kFloors = fs::path(GPUQUAL_SOURCE_DIR) / "baselines" / "floors";

Baseline h200_floor() { return load_baseline((kFloors / "h200-sxm-141gb.yaml").string()); }

CheckResult passed(const std::string& name) {
  CheckResult c;
  c.name = name;
  c.status = Status::pass;
  return c;
}

CheckResult per_gpu_metric(const std::string& check, const std::string& metric, const std::string& unit,
                           double v, int gpus) {
  CheckResult c = passed(check);
  for (int g = 0; g < gpus; ++g) c.metrics.push_back(make_metric(metric, unit, {v, v, v, v, v}, g));
  return c;
}

CheckResult health_of(const std::vector<int>& gpus) {
  CheckResult c = passed("health");
  for (int g : gpus) c.per_gpu.push_back(GpuCheckStatus{g, Status::pass, "", ""});
  return c;
}

// A healthy node of `gpus` H200s, as the smoke suite measures it: every GPU on the PCI bus.
RunRecord whole_node(int gpus) {
  RunRecord r = make_record(gpus);
  r.node.k8s_labels.clear();
  r.node.pci_gpus = std::vector<PciGpu>{};
  for (const auto& g : r.gpus)
    r.node.pci_gpus->push_back(PciGpu{g.pci_bus_id.substr(4), "0x2335", "0x030200", "nvidia"});
  std::vector<int> all;
  for (int g = 0; g < gpus; ++g) all.push_back(g);
  r.checks = {health_of(all), per_gpu_metric("gemm", "gemm.bf16.n4096.tflops", "TFLOP/s", 700, gpus),
              per_gpu_metric("hbm", "hbm.copy.gbps", "GB/s", 4300, gpus),
              per_gpu_metric("pcie", "pcie.h2d.gbps", "GB/s", 55, gpus)};
  return r;
}

void drop_check(RunRecord& r, const std::string& name) {
  std::erase_if(r.checks, [&](const CheckResult& c) { return c.name == name; });
}

bool has_reason(const Verdict& v, const std::string& text) {
  for (const auto& why : v.reasons) {
    if (why.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string reasons(const Verdict& v) {
  std::string out = v.summary;
  for (const auto& why : v.reasons) out += "\n  " + why;
  return out;
}

// A hand-written measured baseline with one GEMM expectation and nothing required.
Baseline measured(std::optional<int> gpu_count = std::nullopt) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  b.origin = "measured.yaml";
  b.gpu_count = gpu_count;
  MetricExpectation e = expectation("gemm.bf16.n4096.tflops", "TFLOP/s", 0.05);
  e.expected = 700;
  b.metrics.push_back(e);
  return b;
}

}  // namespace

// --- rule 1: every baseline says what a class must measure -----------------------------------

TEST(PassRulesFloors, EveryFloorTakesTheCountFromTheNodeAndRequiresTheCoreChecksOnEveryGpu) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(kFloors)) {
    const Baseline b = load_baseline(e.path().string());
    ++files;
    EXPECT_TRUE(b.gpu_count_from_node) << e.path();
    EXPECT_FALSE(b.gpu_count) << e.path();
    // GB200/GB300 reach the host over NVLink-C2C: their floors name no PCIe metric and mark the
    // pcie check optional (docs/baselines.md); every other floor requires it on every GPU.
    const bool c2c = b.hardware_class.starts_with("gb200-") || b.hardware_class.starts_with("gb300-");
    if (c2c) {
      EXPECT_TRUE(std::none_of(b.metrics.begin(), b.metrics.end(), [](const auto& m) {
        return m.name.starts_with("pcie.");
      })) << e.path();
    }
    for (const char* check : {"health", "gemm", "hbm", "pcie"}) {
      ASSERT_TRUE(b.checks.count(check)) << e.path() << " " << check;
      if (c2c && std::string_view(check) == "pcie") {
        EXPECT_TRUE(b.checks.at(check).optional) << e.path();
        continue;
      }
      EXPECT_TRUE(b.checks.at(check).required) << e.path() << " " << check;
      EXPECT_TRUE(b.checks.at(check).every_gpu) << e.path() << " " << check;
    }
  }
  EXPECT_EQ(files, 11 + 15);  // 11 whole-GPU classes and 15 derived MIG profiles (docs/mig.md)
}

TEST(PassRulesFloors, AWholeHealthyNodePasses) {
  const Baseline b = h200_floor();
  const Verdict v = compare_record(whole_node(2), &b, {});
  EXPECT_EQ(v.outcome, Outcome::pass) << reasons(v);
}

TEST(PassRulesFloors, ALostGpuFails) {
  const Baseline b = h200_floor();
  // The bus still shows both GPUs; NVML lists one.
  RunRecord r = whole_node(2);
  r.gpus.pop_back();
  for (auto& c : r.checks) {
    std::erase_if(c.metrics, [](const Metric& m) { return m.gpu == 1; });
    std::erase_if(c.per_gpu, [](const GpuCheckStatus& s) { return s.gpu == 1; });
  }
  Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail) << reasons(v);
  EXPECT_TRUE(has_reason(v, "gpu.missing")) << reasons(v);
  // Gone from the bus too, but the node's label says 8: still missing, 6 of 8.
  RunRecord labelled = whole_node(2);
  labelled.node.pci_gpus.reset();
  labelled.node.k8s_labels["nvidia.com/gpu.count"] = "8";
  v = compare_record(labelled, &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail) << reasons(v);
  EXPECT_TRUE(has_reason(v, "6 of 8 expected GPUs missing")) << reasons(v);
}

TEST(PassRulesFloors, ARecordWithoutItsGemmOrWithOnlyHealthIsInconclusive) {
  const Baseline b = h200_floor();
  RunRecord no_gemm = whole_node(2);
  drop_check(no_gemm, "gemm");
  Verdict v = compare_record(no_gemm, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "gemm: not in the record, but required by the baseline")) << reasons(v);
  RunRecord health_only = whole_node(2);
  health_only.checks.resize(1);
  v = compare_record(health_only, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "metrics: no metric of the record was judged against the baseline"))
      << reasons(v);
}

TEST(PassRulesFloors, AnyGemmTheFloorNamesCountsButOneItDoesNotNameOrOnOneGpuDoesNot) {
  const Baseline b = h200_floor();
  RunRecord fp16 = whole_node(2);
  fp16.checks[1] = per_gpu_metric("gemm", "gemm.fp16.tflops", "TFLOP/s", 800, 2);  // canary's 8192^3
  EXPECT_EQ(compare_record(fp16, &b, {}).outcome, Outcome::pass);
  RunRecord fp8 = whole_node(2);
  fp8.checks[1] = per_gpu_metric("gemm", "gemm.fp8_e4m3.tflops", "TFLOP/s", 1600, 2);  // not in the floor
  Verdict v = compare_record(fp8, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "gemm gpu 0: no metric of it on this GPU was judged against the baseline"))
      << reasons(v);
  RunRecord one_gpu = whole_node(2);
  one_gpu.checks[1] = per_gpu_metric("gemm", "gemm.bf16.n4096.tflops", "TFLOP/s", 700, 1);
  v = compare_record(one_gpu, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "gemm gpu 1:")) << reasons(v);
  EXPECT_FALSE(has_reason(v, "gemm gpu 0:")) << reasons(v);
}

TEST(PassRules, ABaselineWithoutMetricsNeverPasses) {
  Baseline empty;
  empty.hardware_class = "h200-sxm-141gb";
  empty.origin = "empty.yaml";
  empty.gpu_count = 2;
  const Verdict v = compare_record(whole_node(2), &empty, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "the baseline names no metric")) << reasons(v);
}

// --- rule 2: required checks, health on every GPU --------------------------------------------

TEST(PassRules, ACheckItsSuiteListsIsRequiredWhetherLeftOutOrNot) {
  const Baseline b = measured(2);
  RunRecord r = whole_node(2);
  r.suite = "smoke";  // compat, health, gemm, hbm, pcie
  r.checks.push_back(passed("compat"));
  EXPECT_EQ(compare_record(r, &b, {}).outcome, Outcome::pass) << reasons(compare_record(r, &b, {}));
  drop_check(r, "health");  // run --skip health leaves it out
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "health: not in the record, but required by suite smoke")) << reasons(v);
  // A suite gpuqual does not have requires what the baseline requires; a baseline that requires
  // no check (hand-made, without `checks:`) then leaves every core check required.
  r.suite = "my-own-suite";
  const Verdict unknown = compare_record(r, &b, {});
  EXPECT_EQ(unknown.outcome, Outcome::inconclusive) << reasons(unknown);
  EXPECT_TRUE(has_reason(unknown,
                         "health: not in the record, but required by gpuqual (suite \"my-own-suite\" is "
                         "none it has, and the baseline requires no check)"))
      << reasons(unknown);
  Baseline says = b;
  says.checks["gemm"].required = true;  // the operator's own word on what the suite runs
  EXPECT_EQ(compare_record(r, &says, {}).outcome, Outcome::pass) << reasons(compare_record(r, &says, {}));
  says.checks.clear();
  says.checks["health"].optional = true;  // or a core check forgiven by name: the others still count
  EXPECT_EQ(compare_record(r, &says, {}).outcome, Outcome::pass) << reasons(compare_record(r, &says, {}));
  drop_check(r, "pcie");
  const Verdict no_pcie = compare_record(r, &says, {});
  EXPECT_EQ(no_pcie.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(no_pcie, "pcie: not in the record, but required by gpuqual (suite"))
      << reasons(no_pcie);
}

TEST(PassRules, ASuiteEntryMarkedOptionalIsNotRequired) {
  const fs::path dir = fs::temp_directory_path() / "gpuqual-pass-rules-suites";
  fs::create_directories(dir);
  std::ofstream(dir / "mine.yaml")
      << "name: mine\nchecks:\n  - check: health\n  - check: p2p\n    optional: true\n";
  const auto req = suite_requirement_in("mine", dir.string());
  ASSERT_TRUE(req);
  EXPECT_EQ(req->checks, (std::vector<std::string>{"health"}));
  EXPECT_FALSE(suite_requirement_in("../mine", dir.string()));
  EXPECT_FALSE(suite_requirement_in("absent", dir.string()));
  fs::remove_all(dir);
}

TEST(PassRules, HealthThatReadOnlyOneOfTwoGpusIsInconclusive) {
  const Baseline b = measured(2);
  RunRecord r = whole_node(2);
  r.checks[0] = health_of({0});
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "health gpu 1: it reported nothing for this GPU")) << reasons(v);
  EXPECT_EQ(v.per_gpu.at(1), Status::error);
  EXPECT_EQ(v.per_gpu.at(0), Status::pass);
}

// --- rule 5: the expected GPU count is the largest of every source ---------------------------

TEST(PassRulesGpuCount, TheLargestSourceWinsAndNoneLowersAnother) {
  RunRecord r = make_record(2);
  r.node.k8s_labels["nvidia.com/gpu.count"] = "8";
  const Baseline two = measured(2);
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt)->count, 8);
  EXPECT_EQ(expected_gpu_count(r, &two, 2)->count, 8);  // --expect-gpus 2 does not lower it
  r.node.k8s_labels.clear();
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt)->count, 2);
  r.node.stack = StackInventory{};
  r.node.stack->k8s_gpu_capacity = StackFact::read("4");
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt)->count, 4);
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt)->source, "the Node's capacity nvidia.com/gpu");
  // The bus: bound to nvidia or to nothing counts, one handed to a VM (vfio-pci) does not.
  r.node.pci_gpus = std::vector<PciGpu>{};
  for (int i = 0; i < 5; ++i)
    r.node.pci_gpus->push_back(PciGpu{"0000:1" + std::to_string(i) + ":00.0", "", "", "nvidia"});
  r.node.pci_gpus->push_back(PciGpu{"0000:20:00.0", "", "", ""});
  r.node.pci_gpus->push_back(PciGpu{"0000:21:00.0", "", "", "vfio-pci"});
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt)->count, 6);
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt, 7)->count, 7);
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt, 7)->source, "the before-record's GPUs");
  EXPECT_EQ(expected_gpu_count(r, &two, 9, 7)->count, 9);
}

// A GPU bound to another host driver (nouveau) is still the node's, unusable: a node that runs on
// one of its two GPUs because the other fell to nouveau is missing a GPU, not a one-GPU node.
TEST(PassRulesGpuCount, AGpuBoundToAnotherHostDriverIsTheNodesAndMissing) {
  const Baseline b = measured();
  RunRecord r = whole_node(1);
  r.node.k8s_labels.clear();
  r.node.pci_gpus = std::vector<PciGpu>{PciGpu{"0000:19:00.0", "", "", "nvidia"},
                                        PciGpu{"0000:3b:00.0", "", "", "nouveau"}};
  EXPECT_EQ(expected_gpu_count(r, &b, std::nullopt)->count, 2);
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail) << reasons(v);
  r.node.pci_gpus->back().driver = "pci-stub";  // held for passthrough: a VM's
  EXPECT_EQ(expected_gpu_count(r, &b, std::nullopt)->count, 1);
}

TEST(PassRulesGpuCount, TheBeforeRecordsCountFailsAnAfterRecordThatLostAGpu) {
  const Baseline b = measured();
  RunRecord r = whole_node(2);
  CompareOptions o;
  o.before_gpu_count = 3;
  const Verdict v = compare_record(r, &b, o);
  EXPECT_EQ(v.outcome, Outcome::fail) << reasons(v);
  EXPECT_TRUE(has_reason(v, "expected by the before-record's GPUs")) << reasons(v);
}

// The review's case: a GPU lost before and after, and nothing else gives the count. compare of
// either record is inconclusive; so is the after judged with the before's count, and so is diff.
TEST(PassRulesGpuCount, TheBeforeRecordAloneDoesNotVouchForTheCount) {
  const Baseline b = measured();
  RunRecord after = whole_node(1);
  after.node.pci_gpus.reset();
  CompareOptions o;
  o.before_gpu_count = 1;
  const Verdict v = compare_record(after, &b, o);
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "the before-record may have lost the same GPUs")) << reasons(v);
  // A before-record with more GPUs still shows the loss: a fail, not a question.
  o.before_gpu_count = 2;
  EXPECT_EQ(compare_record(after, &b, o).outcome, Outcome::fail);
  RunRecord before = after;
  before.run_id = "before";
  before.started_at = "2026-01-01T00:00:00Z";
  before.ended_at = "2026-01-01T00:10:00Z";
  DiffOptions d;
  d.after_baseline = &b;
  EXPECT_NE(diff_records(before, after, d).outcome, Outcome::pass);
}

TEST(PassRulesGpuCount, NoSourceAtAllIsInconclusive) {
  const Baseline b = measured();
  RunRecord r = whole_node(2);
  r.node.pci_gpus.reset();
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "gpus: the node's GPU count is unknown")) << reasons(v);
  // Against the floors (gpu_count: node) the same.
  const Baseline f = h200_floor();
  EXPECT_EQ(compare_record(r, &f, {}).outcome, Outcome::inconclusive);
}

// A bus read without NVIDIA GPUs says the node has none only when the record lists none either
// (a vGPU guest's GPUs are not on its bus).
TEST(PassRulesGpuCount, AnEmptyBusCountsOnlyForARecordWithoutGpus) {
  RunRecord none = make_record(0);
  none.node.pci_gpus = std::vector<PciGpu>{};
  ASSERT_TRUE(expected_gpu_count(none, nullptr, std::nullopt));
  EXPECT_EQ(expected_gpu_count(none, nullptr, std::nullopt)->count, 0);
  RunRecord guest = make_record(1);
  guest.node.k8s_labels.clear();
  guest.node.pci_gpus = std::vector<PciGpu>{};
  EXPECT_FALSE(expected_gpu_count(guest, nullptr, std::nullopt));
}

// Under GPU Feature Discovery's single MIG strategy the labels and the capacity count MIG devices
// (GFD writes nvidia.com/mig.strategy=single with them; under mixed or none gpu.count counts GPUs:
// MigExpectedGpus in test_mig_units.cpp).
TEST(PassRulesGpuCount, WithMigOnTheLabelsDoNotCountGpusButTheBusDoes) {
  RunRecord r = make_record(2);
  r.node.k8s_labels["nvidia.com/gpu.count"] = "14";
  r.node.k8s_labels["nvidia.com/mig.strategy"] = "single";
  r.node.stack = StackInventory{};
  r.node.stack->k8s_gpu_capacity = StackFact::read("14");
  EXPECT_EQ(expected_gpu_count(r, nullptr, std::nullopt)->count, 14);
  for (auto& g : r.gpus) g.mig_enabled = true;
  EXPECT_FALSE(expected_gpu_count(r, nullptr, std::nullopt));
  r.node.pci_gpus =
      std::vector<PciGpu>{PciGpu{"0000:10:00.0", "", "", "nvidia"}, PciGpu{"0000:11:00.0", "", "", "nvidia"},
                          PciGpu{"0000:12:00.0", "", "", "nvidia"}};
  EXPECT_EQ(expected_gpu_count(r, nullptr, std::nullopt)->count, 3);
}

TEST(PassRulesGpuCount, TwoOfEightGpusGivenToTheRunAreNeverANodePass) {
  const Baseline b = measured();
  RunRecord r = whole_node(2);
  r.node.pci_gpus.reset();
  r.node.k8s_labels["nvidia.com/gpu.count"] = "8";
  r.node.visible_devices = "CUDA_VISIBLE_DEVICES=0,1";
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "2 of the node's 8 GPUs judged (CUDA_VISIBLE_DEVICES=0,1")) << reasons(v);
  for (const auto& f : v.findings) EXPECT_NE(f.finding.code, "gpu.missing");
  // "all" is the whole node.
  r.node.visible_devices = "NVIDIA_VISIBLE_DEVICES=all";
  EXPECT_EQ(compare_record(r, &b, {}).outcome, Outcome::fail);
}

// --- rule 6 ------------------------------------------------------------------------------------

TEST(PassRules, AnIncompleteRunNeverPasses) {
  const Baseline b = measured(2);
  RunRecord r = whole_node(2);
  r.complete = false;
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "run: the run did not complete (complete: false)")) << reasons(v);
}

// --- the loader and the writer ---------------------------------------------------------------

namespace {

std::string loader_error(const std::string& extra) {
  const std::string text = "schema: gpuqual.baseline/v1\nhardware_class: h200-sxm-141gb\n" + extra +
                           "provenance:\n  source: test\nmetrics: []\n";
  try {
    parse_baseline_yaml(text, "b.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PassRulesLoader, GpuCountNodeAndRequiredChecksAreReadStrictlyAndWrittenBack) {
  EXPECT_EQ(loader_error("gpu_count: node\nchecks:\n  gemm: {required: true, every_gpu: true}\n"), "");
  EXPECT_NE(loader_error("gpu_count: any\n").find("$.gpu_count: \"any\" is not a GPU count"),
            std::string::npos)
      << loader_error("gpu_count: any\n");
  EXPECT_NE(
      loader_error("checks:\n  gemm: {required: true, optional: true}\n").find("both optional and required"),
      std::string::npos);
  EXPECT_NE(loader_error("checks:\n  gemm: {every_gpu: true}\n").find("every_gpu needs required: true"),
            std::string::npos);
  Baseline b = h200_floor();
  const Baseline back = parse_baseline_yaml(baseline_to_yaml(b), "back.yaml");
  EXPECT_TRUE(back.gpu_count_from_node);
  EXPECT_TRUE(back.checks.at("pcie").required);
  EXPECT_TRUE(back.checks.at("pcie").every_gpu);
  EXPECT_FALSE(back.checks.at("pcie").optional);
}

// --- rule 9: baseline build leaves a partial record out ---------------------------------------

namespace {

std::vector<std::pair<RunRecord, std::string>> whole_fleet(Jitter& jitter, int nodes) {
  std::vector<std::pair<RunRecord, std::string>> out;
  for (int i = 0; i < nodes; ++i) {
    const std::string host = "node-" + std::to_string(i);
    out.emplace_back(with_health_and_pcie(flat_node_record(jitter, host), jitter), host + ".json");
  }
  return out;
}

BaselineBuildResult build(const std::vector<std::pair<RunRecord, std::string>>& records) {
  BaselineBuildOptions o;
  o.created = "2026-12-01";
  BaselineBuilder builder(o);
  for (const auto& [r, path] : records) builder.add(r, path);
  return builder.finish();
}

std::string excluded_reason(const BaselineBuildResult& res, const std::string& path) {
  for (const auto& e : res.excluded) {
    if (e.path == path) return e.reason;
  }
  return "(kept)";
}

}  // namespace

TEST(PassRulesBaselineBuild, APartialRecordIsLeftOutNamedAndNeverWeakensTheBaseline) {
  Jitter jitter{std::mt19937_64(31)};
  auto records = whole_fleet(jitter, 8);
  // node-0 lost a GPU (its label still says 8), node-1 one the label does not know of.
  RunRecord& lost = records[0].first;
  lost.gpus.pop_back();
  for (auto& c : lost.checks) {
    std::erase_if(c.metrics, [](const Metric& m) { return m.gpu == 7; });
    std::erase_if(c.per_gpu, [](const GpuCheckStatus& s) { return s.gpu == 7; });
  }
  RunRecord quiet = records[1].first;  // kept for the judgement below
  records[1].first.gpus.pop_back();
  records[1].first.node.k8s_labels.clear();
  drop_check(records[2].first, "pcie");
  records[3].first.complete = false;
  records[4].first.checks[0].status = Status::error;
  records[4].first.checks[0].reason = "timed out";
  records[5].first.checks[2] = health_of({0, 1, 2});  // health read 3 of 8
  const BaselineBuildResult res = build(records);
  EXPECT_EQ(excluded_reason(res, "node-0.json"),
            "partial: 1 of 8 expected GPUs missing: the record has 7 "
            "(expected by the node's label nvidia.com/gpu.count)");
  EXPECT_EQ(excluded_reason(res, "node-1.json"), "partial: 7 GPUs, where other records of the class have 8");
  EXPECT_EQ(excluded_reason(res, "node-2.json"), "partial: no check pcie, which a built baseline requires");
  EXPECT_EQ(excluded_reason(res, "node-3.json"), "the run did not complete");
  EXPECT_EQ(excluded_reason(res, "node-4.json"), "partial: check gemm errored: timed out");
  EXPECT_EQ(excluded_reason(res, "node-5.json"),
            "partial: check health did not report every one of the record's 8 GPUs");
  EXPECT_EQ(res.included.size(), 2u);
  const Baseline& b = res.baseline;
  EXPECT_EQ(b.gpu_count, 8);
  for (const char* check : {"health", "gemm", "hbm", "pcie"}) {
    ASSERT_TRUE(b.checks.count(check)) << check;
    EXPECT_TRUE(b.checks.at(check).required) << check;
    EXPECT_TRUE(b.checks.at(check).every_gpu) << check;
  }
  for (const auto& m : b.metrics) EXPECT_TRUE(m.required) << m.name;
  // Judged against it: the node that lost a GPU fails, the one without pcie is inconclusive.
  const Baseline loaded = parse_baseline_yaml(baseline_to_yaml(b), "built.yaml");
  EXPECT_EQ(compare_record(records[0].first, &loaded, {}).outcome, Outcome::fail);
  RunRecord unlabelled = records[1].first;
  EXPECT_EQ(compare_record(unlabelled, &loaded, {}).outcome, Outcome::fail);
  EXPECT_EQ(compare_record(records[2].first, &loaded, {}).outcome, Outcome::inconclusive);
  EXPECT_EQ(compare_record(quiet, &loaded, {}).outcome, Outcome::pass)
      << reasons(compare_record(quiet, &loaded, {}));
}

TEST(PassRulesBaselineBuild, ACheckMostRecordsHaveIsRequiredAndARecordWithoutItIsLeftOut) {
  Jitter jitter{std::mt19937_64(32)};
  auto records = whole_fleet(jitter, 5);
  for (std::size_t i = 0; i < 4; ++i) records[i].first.checks.push_back(passed("compat"));
  const BaselineBuildResult res = build(records);
  EXPECT_EQ(excluded_reason(res, "node-4.json"), "partial: no check compat, which 4 of the 5 records have");
  ASSERT_TRUE(res.baseline.checks.count("compat"));
  EXPECT_TRUE(res.baseline.checks.at("compat").required);
  EXPECT_FALSE(res.baseline.checks.at("compat").every_gpu);  // a node-level check
}
