// MIG and vGPU units (docs/mig.md): how many GPUs a MIG node must have ("Expected GPUs") and which
// unit a not-applicable skip code holds for ("What does not apply"), through the functions compare
// calls (expected_gpu_count, not_applicable_refusal) and compare_record itself.
#include <gtest/gtest.h>

#include "baseline_builders.hpp"
#include "core/judge/compare.hpp"
#include "core/record/hardware_class.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/skip_acceptance.hpp"
#include "record_builders.hpp"

namespace gpuqual {
namespace {

using testing::make_gpu;
using testing::make_metric;
using testing::make_record;

// An H100 80GB split into seven 1g.10gb devices, as NVML lists them (nvidia-smi mig -lgip: 9.75 GiB,
// 16 SMs each; placement one memory slice each).
MigState seven_1g(int gpu) {
  MigState mig;
  mig.current = mig.pending = true;
  for (unsigned k = 0; k < 7; ++k) {
    MigGpuInstance gi;
    gi.id = k + 1;
    gi.profile = "1g.10gb";
    gi.placement_start = k;
    gi.placement_size = 1;
    gi.memory_bytes = 9984ull << 20;
    gi.compute_instances.push_back(
        MigComputeInstance{0, "1g.10gb", "MIG-" + std::to_string(gpu) + "-" + std::to_string(k), 16});
    mig.gpu_instances.push_back(gi);
  }
  return mig;
}

// `whole` H100s not in MIG mode, then `in_mig` in MIG mode; a suite gpuqual does not ship.
RunRecord h100_node(int whole, int in_mig) {
  RunRecord r = make_record(whole + in_mig);
  r.suite = "mig-units-test";
  r.node.k8s_labels.clear();
  for (auto& g : r.gpus) {
    g = make_gpu(g.index, "NVIDIA H100 80GB HBM3", 81559ull << 20);
    if (g.index >= whole) {
      g.mig = seven_1g(g.index);
      g.mig_enabled = true;
    }
  }
  r.hardware_class = derive_hardware_class(r.gpus);
  return r;
}

CheckResult skipped(const std::string& name, const std::string& code) {
  CheckResult c;
  c.name = name;
  c.status = Status::skip;
  c.reason = "not applicable here";
  c.reason_code = code;
  return c;
}

std::string text_of(const Verdict& v) {
  std::string out = v.summary;
  for (const auto& why : v.reasons) out += "\n  " + why;
  return out;
}

const CheckRow* row_of(const Verdict& v, const std::string& check, std::optional<int> gpu) {
  for (const auto& c : v.checks) {
    if (c.check == check && c.gpu == gpu) return &c;
  }
  return nullptr;
}

// --- rule 8: the expected GPU count of a MIG node -------------------------------------------------

// GFD's mixed strategy keeps the none strategy's nvidia.com/gpu.count, the physical GPUs: a MIG
// node that lost one is missing it, whatever its MIG devices advertise.
TEST(MigExpectedGpus, MixedStrategyGpuCountStillCountsTheGpus) {
  RunRecord r = h100_node(0, 2);
  r.node.k8s_labels = {{"nvidia.com/mig.strategy", "mixed"},
                       {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                       {"nvidia.com/gpu.count", "3"},
                       {"nvidia.com/gpu", "0"},
                       {"nvidia.com/mig-1g.10gb.count", "14"}};
  const auto expected = expected_gpu_count(r, nullptr, std::nullopt);
  ASSERT_TRUE(expected);
  EXPECT_EQ(expected->count, 3);
  EXPECT_EQ(expected->source, "the node's label nvidia.com/gpu.count");
  const auto missing = missing_gpus_row(r, *expected);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->finding.code, "gpu.missing");
  // Through compare: a fail, with or without a baseline.
  const Verdict v = compare_record(r, nullptr, {});
  EXPECT_EQ(v.outcome, Outcome::fail) << text_of(v);
  EXPECT_NE(text_of(v).find("1 of 3 expected GPUs missing"), std::string::npos) << text_of(v);
}

// Under the single strategy gpu.count is the MIG devices (and the product names the profile): it
// says nothing of the GPUs, so it neither fails a whole node nor hides a lost GPU the bus shows.
TEST(MigExpectedGpus, SingleStrategyCountIsMigDevicesAndTheBusStillCounts) {
  RunRecord r = h100_node(0, 2);
  r.node.k8s_labels = {{"nvidia.com/mig.strategy", "single"},
                       {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"},
                       {"nvidia.com/gpu.count", "14"}};
  EXPECT_FALSE(expected_gpu_count(r, nullptr, std::nullopt));
  EXPECT_FALSE(expected_gpu_count(r.node.k8s_labels, nullptr, std::nullopt));  // what `run` hands health
  r.node.pci_gpus = std::vector<PciGpu>{};
  for (const char* bus : {"0000:10:00.0", "0000:11:00.0", "0000:12:00.0"})
    r.node.pci_gpus->push_back(PciGpu{bus, "0x2330", "0x030200", "nvidia"});
  const auto expected = expected_gpu_count(r, nullptr, std::nullopt);
  ASSERT_TRUE(expected);
  EXPECT_EQ(expected->count, 3);
  EXPECT_EQ(compare_record(r, nullptr, {}).outcome, Outcome::fail);
  // The bus agreeing with the record: nothing is missing.
  r.node.pci_gpus->pop_back();
  EXPECT_FALSE(missing_gpus_row(r, *expected_gpu_count(r, nullptr, std::nullopt)));
}

// --- rule 9: a skip code holds for the unit the inventory bears it out for -------------------------

TEST(MigSkipUnits, MigInstanceHoldsOnlyOnTheGpusInMigMode) {
  const RunRecord r = h100_node(1, 1);
  const CheckResult p2p = skipped("p2p", "mig_instance");
  EXPECT_TRUE(not_applicable_refusal(r, p2p, "mig_instance", 0));  // GPU 0 is whole
  EXPECT_FALSE(not_applicable_refusal(r, p2p, "mig_instance", 1));
  // One whole GPU: nothing to run p2p between, so the whole check may skip.
  EXPECT_FALSE(not_applicable_refusal(r, p2p, "mig_instance", std::nullopt));
}

// p2p and nccl_allreduce run among the whole GPUs of a node that has both: a skip of the whole
// check as mig_instance is not accepted there, in the verdict of compare.
TEST(MigSkipUnits, BetweenGpuChecksStillRunAmongTheWholeGpus) {
  RunRecord r = h100_node(2, 1);
  for (const char* check : {"p2p", "nccl_allreduce"}) {
    const auto why = not_applicable_refusal(r, skipped(check, "mig_instance"), "mig_instance", std::nullopt);
    ASSERT_TRUE(why) << check;
    EXPECT_NE(why->find("2 GPUs of the record are not in MIG mode"), std::string::npos) << *why;
  }
  r.checks = {skipped("p2p", "mig_instance")};
  const Verdict v = compare_record(r, nullptr, {});
  const CheckRow* row = row_of(v, "p2p", std::nullopt);
  ASSERT_NE(row, nullptr);
  EXPECT_FALSE(row->skip_accepted) << row->reason;
  EXPECT_NE(v.outcome, Outcome::pass);
  // Every GPU in MIG mode: the skip holds.
  RunRecord all_mig = h100_node(0, 2);
  all_mig.checks = {skipped("p2p", "mig_instance")};
  const Verdict all = compare_record(all_mig, nullptr, {});
  const CheckRow* ok = row_of(all, "p2p", std::nullopt);
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(ok->skip_accepted) << ok->reason;
}

// A mixed node with one whole GPU: p2p runs on it alone and skips as single_gpu, which holds when
// every source that counts GPUs agrees the node has no GPU beyond the record's.
TEST(MigSkipUnits, OneWholeGpuBesideMigGpusIsASingleGpuToP2p) {
  RunRecord r = h100_node(1, 2);
  r.node.k8s_labels = {
      {"nvidia.com/mig.strategy", "mixed"}, {"nvidia.com/gpu.count", "3"}, {"nvidia.com/gpu", "1"}};
  const CheckResult p2p = skipped("p2p", "single_gpu");
  EXPECT_FALSE(not_applicable_refusal(r, p2p, "single_gpu", std::nullopt));
  r.node.k8s_labels["nvidia.com/gpu.count"] = "4";  // a GPU the record does not list
  EXPECT_EQ(not_applicable_refusal(r, p2p, "single_gpu", std::nullopt),
            "single_gpu, but the label nvidia.com/gpu.count says 4 GPUs where the record lists 3");
  const RunRecord two_whole = h100_node(2, 1);
  EXPECT_EQ(not_applicable_refusal(two_whole, p2p, "single_gpu", std::nullopt),
            "single_gpu, but the record has 2 GPUs not in MIG mode");
}

Baseline gemm_baseline(int gpus) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  MetricExpectation e;
  e.name = "gemm.bf16.tflops";
  e.unit = "TFLOP/s";
  e.expected = 771;
  b.metrics = {e};
  b.gpu_count = gpus;
  b.origin = "h200.yaml";
  return testing::require_metric_checks(b);
}

// Two H200s, GEMM measured on both; health as a vGPU guest's check gives it.
RunRecord guest_node(bool second_is_vgpu, bool second_has_status) {
  RunRecord r = make_record(2);
  r.suite = "mig-units-test";
  r.gpus[0].virtualization_mode = "vgpu";
  r.gpus[1].virtualization_mode = second_is_vgpu ? "vgpu" : "none";
  CheckResult gemm;
  gemm.name = "gemm";
  gemm.status = Status::pass;
  for (int g : {0, 1}) gemm.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", {780, 780, 780}, g));
  CheckResult health = skipped("health", "vgpu_guest");
  health.per_gpu.push_back(
      GpuCheckStatus{0, Status::skip, "vGPU guest: NVML does not provide ecc_mode", "vgpu_guest"});
  if (second_has_status)
    health.per_gpu.push_back(
        GpuCheckStatus{1, Status::skip, "vGPU guest: NVML does not provide ecc_mode", "vgpu_guest"});
  r.checks = {gemm, health};
  return r;
}

TEST(VgpuSkipUnits, VgpuGuestHoldsOnlyOnTheVgpus) {
  const RunRecord r = guest_node(false, true);
  const CheckResult& health = r.checks[1];
  EXPECT_FALSE(not_applicable_refusal(r, health, "vgpu_guest", 0));
  const auto why = not_applicable_refusal(r, health, "vgpu_guest", 1);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "vgpu_guest, but GPU 1 is not a vGPU");
  // Judged per GPU row: GPU 1's skip is not accepted, so the node is not a pass.
  const Baseline b = gemm_baseline(2);
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << text_of(v);
  const CheckRow* gpu1 = row_of(v, "health", 1);
  ASSERT_NE(gpu1, nullptr);
  EXPECT_FALSE(gpu1->skip_accepted);
}

// The check skipped as a whole, with a status for the vGPU alone: the skip speaks for the vGPU,
// and the every-GPU rule still asks health for the other GPU, which it never reported.
TEST(VgpuSkipUnits, ACheckLevelSkipNeverWaivesTheEveryGpuRuleForTheOthers) {
  const Baseline b = gemm_baseline(2);
  const Verdict all_guests = compare_record(guest_node(true, true), &b, {});
  EXPECT_EQ(all_guests.outcome, Outcome::pass) << text_of(all_guests);

  const Verdict v = compare_record(guest_node(false, false), &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << text_of(v);
  const CheckRow* gpu1 = row_of(v, "health", 1);
  ASSERT_NE(gpu1, nullptr) << text_of(v);
  EXPECT_EQ(gpu1->status, Status::error);
  EXPECT_NE(gpu1->reason.find("vgpu_guest, but GPU 1 is not a vGPU"), std::string::npos) << gpu1->reason;
  // No status at all, only the check's: the same.
  RunRecord bare = guest_node(false, false);
  bare.checks[1].per_gpu.clear();
  const Verdict w = compare_record(bare, &b, {});
  EXPECT_EQ(w.outcome, Outcome::inconclusive) << text_of(w);
  EXPECT_NE(row_of(w, "health", 1), nullptr) << text_of(w);
}

}  // namespace
}  // namespace gpuqual
