// What earns a PASS (docs/compare.md): a record names each GPU once and states the class its GPUs give; a
// not-applicable skip code counts only from its own check and when the inventory agrees; and a
// finding's severity is never below what gpuqual's shipped tables give it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "baseline_builders.hpp"
#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/gate.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"
#include "core/rules/health_severity.hpp"
#include "core/verdict/skip_acceptance.hpp"
#include "record_builders.hpp"
#include "runner/multinode/nccl_rank_report.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
using nlohmann::json;

namespace {

// What both readers say about the record: "(accepted)" or the error, which must be the same.
std::string read_both(const RunRecord& r) {
  const std::string text = to_json(r).dump();
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const std::string slow = message([&] { record_from_json(parse_json_text(text, "r.json"), "r.json"); });
  const std::string fast = message([&] { StreamingRecordReader().parse(text, "r.json"); });
  EXPECT_EQ(fast, slow);
  return slow;
}

bool refused_with(const RunRecord& r, const std::string& part) {
  const std::string m = read_both(r);
  EXPECT_NE(m.find(part), std::string::npos) << m;
  return m.find(part) != std::string::npos && m.rfind("r.json", 0) == 0;
}

// A record of a suite that is not a shipped file, so that it requires no further checks.
RunRecord judged(int gpus) {
  RunRecord r = make_record(gpus);
  r.suite = "pass-rules-test";
  return r;
}

RunRecord h100_record(int gpus) {
  RunRecord r = judged(gpus);
  for (auto& g : r.gpus) g = make_gpu(g.index, "NVIDIA H100 80GB HBM3", 81559ull << 20);
  r.hardware_class = derive_hardware_class(r.gpus);
  return r;
}

MetricExpectation gemm_floor() {
  MetricExpectation e;
  e.name = "gemm.bf16.tflops";
  e.unit = "TFLOP/s";
  e.expected = 771;
  e.tolerance = 0.05;
  return e;
}

// A baseline that names the node's GPU count, so that only the rule under test decides.
Baseline h200_baseline(int gpus = 1) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  b.metrics = {gemm_floor()};
  b.gpu_count = gpus;
  b.origin = "h200.yaml";
  return require_metric_checks(b);
}

CheckResult gemm(int gpus, double value = 771) {
  CheckResult c;
  c.name = "gemm";
  c.status = Status::pass;
  for (int g = 0; g < gpus; ++g)
    c.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", {value, value, value}, g));
  return c;
}

std::string reasons_of(const Verdict& v) {
  std::string out;
  for (const auto& r : v.reasons) out += "\n  " + r;
  return out;
}

// One H100 run with `--class h200-sxm-141gb`.
RunRecord h100_judged_as_h200() {
  RunRecord r = h100_record(1);
  r.checks = {gemm(1)};
  r.hardware_class.slug = "h200-sxm-141gb";
  r.hardware_class.overridden = true;
  return r;
}

bool has_reason(const Verdict& v, const std::string& part) {
  for (const auto& r : v.reasons) {
    if (r.find(part) != std::string::npos) return true;
  }
  return false;
}

// The same node a day earlier: another run, so that diff judges it as a before-record.
RunRecord day_before(RunRecord r) {
  r.run_id = "run-day-before";
  r.started_at = "2026-11-29T12:00:00Z";
  r.ended_at = "2026-11-29T12:03:00Z";
  return r;
}

const CheckRow* row_of(const Verdict& v, const std::string& check) {
  for (const auto& c : v.checks) {
    if (c.check == check) return &c;
  }
  return nullptr;
}

}  // namespace

// --- rule 3: GPU identity ---------------------------------------------------------------------

TEST(GpuIdentity, OneCardCountedTwiceIsRefusedByBothReaders) {
  EXPECT_EQ(read_both(make_record(2)), "(accepted)");
  RunRecord same_bus = make_record(2);
  same_bus.gpus[1].pci_bus_id = "0000:10:00.0";  // GPU 0's 00000000:10:00.0 in sysfs spelling
  EXPECT_TRUE(
      refused_with(same_bus, "$.gpus[1].pci_bus_id: duplicate PCI bus id 0000:10:00.0 (GPU 0 has it too)"));
  same_bus.gpus[1].pci_bus_id = "10:00.0";  // no domain: domain 0
  EXPECT_TRUE(refused_with(same_bus, "$.gpus[1].pci_bus_id: duplicate PCI bus id 10:00.0"));
  same_bus.gpus[1].pci_bus_id = "00000001:10:00.0";  // another PCI domain: another slot
  EXPECT_EQ(read_both(same_bus), "(accepted)");
  RunRecord same_uuid = make_record(2);
  same_uuid.gpus[1].uuid = "gpu-00000000-0000-0000-0000-000000000000";  // GPU 0's, in lower case
  EXPECT_TRUE(refused_with(same_uuid, "$.gpus[1].uuid: duplicate GPU UUID"));
  RunRecord no_uuid = make_record(2);
  no_uuid.gpus[0].uuid.clear();
  no_uuid.gpus[1].uuid.clear();
  EXPECT_TRUE(refused_with(no_uuid, "$.gpus[0].uuid: GPU 0 has no UUID"));
  // A bus id that was not read is not a duplicate: the UUIDs still tell the cards apart.
  RunRecord unread_bus = make_record(2);
  unread_bus.gpus[0].pci_bus_id.clear();
  unread_bus.gpus[1].pci_bus_id.clear();
  EXPECT_EQ(read_both(unread_bus), "(accepted)");
}

TEST(GpuIdentity, AGpuTheInventoryCouldNotNameIsNamedByItsSlot) {
  RunRecord r = make_record(2);
  r.gpus[0].uuid = unread_gpu_uuid(r.gpus[0]);
  r.gpus[1].pci_bus_id.clear();
  r.gpus[1].uuid = unread_gpu_uuid(r.gpus[1]);
  EXPECT_EQ(r.gpus[0].uuid, "unread:00000000:10:00.0");
  EXPECT_EQ(r.gpus[1].uuid, "unread:gpu1");
  EXPECT_TRUE(is_unread_gpu_uuid(r.gpus[1].uuid));
  EXPECT_FALSE(is_unread_gpu_uuid(make_gpu(0).uuid));
  EXPECT_EQ(read_both(r), "(accepted)");
}

TEST(GpuIdentity, AMultiNodeRecordNamesEachHostsSlotsApart) {
  // Two hosts, one GPU each, in the same slot; rank 2's GPU could not be scanned.
  std::vector<NcclRankReport> reports(3);
  for (int rank = 0; rank < 3; ++rank) {
    reports[rank].rank = rank;
    reports[rank].host = rank == 0 ? "node-a" : "node-b";
    reports[rank].gpu_info = make_gpu(0);
    reports[rank].gpu_info->index = rank;
    reports[rank].gpu_info->uuid = fmt::format("GPU-{}", rank);
  }
  reports[2].gpu_info->uuid.clear();
  reports[2].gpu_info->pci_bus_id = "0000:20:00.0";
  RunRecord r = judged(1);
  r.gpus = multinode_record_gpus(reports);
  r.hardware_class.gpu_count = static_cast<int>(r.gpus.size());
  ASSERT_EQ(r.gpus.size(), 3u);
  EXPECT_EQ(r.gpus[0].pci_bus_id, "00000000:10:00.0");
  EXPECT_EQ(r.gpus[1].pci_bus_id, "node-b/00000000:10:00.0");
  EXPECT_EQ(r.gpus[2].uuid, "unread:node-b/0000:20:00.0");
  EXPECT_EQ(read_both(r), "(accepted)");
}

TEST(GpuIdentity, ARecordWithoutGpusIsValid) {
  RunRecord r = make_record(0);
  r.hardware_class = derive_hardware_class(r.gpus);
  EXPECT_EQ(read_both(r), "(accepted)");
}

TEST(GpuIdentity, TheClassIsTheOneItsGpusGiveUnlessOverridden) {
  RunRecord r = h100_record(2);
  EXPECT_EQ(read_both(r), "(accepted)");
  r.hardware_class.slug = "h200-sxm-141gb";  // H100s claiming the H200 class
  EXPECT_TRUE(refused_with(r,
                           "$.hardware_class.slug: the record says class h200-sxm-141gb, its GPUs (2 x "
                           "\"NVIDIA H100 80GB HBM3\", 81559 MiB) give h100-sxm-80gb"));
  r.hardware_class.overridden = true;  // `run --class h200-sxm-141gb`
  EXPECT_EQ(read_both(r), "(accepted)");
  // A stated "unknown" names no baseline, and a product added to the table later must not make
  // an older record unreadable.
  RunRecord older = h100_record(1);
  older.hardware_class.slug = "unknown";
  EXPECT_EQ(read_both(older), "(accepted)");
  RunRecord count = h100_record(2);
  count.hardware_class.gpu_count = 8;
  EXPECT_TRUE(refused_with(count, "$.hardware_class.gpu_count: the class says 8 GPUs, $.gpus has 2"));
  RunRecord mixed = h100_record(2);
  mixed.gpus[1] = make_gpu(1);  // an H200 next to an H100: "mixed"
  EXPECT_TRUE(refused_with(mixed, "its GPUs (more than one product) give mixed"));
}

TEST(GpuIdentity, AnOverrideIsShownInCompareAndDiffAndDoesNotPassH100AsH200Silently) {
  const RunRecord r = h100_judged_as_h200();
  const Baseline b = h200_baseline();
  const Verdict v = compare_record(r, &b, {});
  EXPECT_TRUE(has_reason(v, "class h200-sxm-141gb is an override (--class); its GPUs give h100-sxm-80gb"))
      << (v.reasons.empty() ? "" : v.reasons.back());
  const Verdict d = diff_records(day_before(r), r, {});
  EXPECT_TRUE(
      has_reason(d, "after: class h200-sxm-141gb is an override (--class); its GPUs give h100-sxm-80gb"));
  // Without the override there is nothing to judge: the reader refuses the record (above), and
  // a derived class says nothing.
  RunRecord derived = judged(1);
  derived.checks = {gemm(1)};
  EXPECT_FALSE(has_reason(compare_record(derived, &b, {}), "is an override"));
  // The one-line summaries say it too: the last line of a Job log must not hide it.
  EXPECT_NE(v.summary.find("class is an override (--class)"), std::string::npos) << v.summary;
  EXPECT_NE(d.summary.find("class is an override (--class)"), std::string::npos) << d.summary;
  EXPECT_EQ(compare_record(derived, &b, {}).summary.find("override"), std::string::npos);
}

TEST(GpuIdentity, GateSaysWhichNodesHaveAnOverriddenClassAndNoUnreadUuidIsAMachine) {
  RunRecord r = h100_judged_as_h200();
  const Baseline b = h200_baseline();
  GatePool pool(GateOptions{});
  pool.add(summarize_node(r, &b, GateOptions{}, "r.json", 0), &b);
  const Verdict v = pool.finish();
  EXPECT_TRUE(
      has_reason(v, "node-a: class h200-sxm-141gb is an override (--class); its GPUs give h100-sxm-80gb"))
      << reasons_of(v);
  EXPECT_NE(v.summary.find("; 1 node judged as an override class (--class)"), std::string::npos) << v.summary;
  // Two machines can both have a GPU the inventory could not name at one bus id.
  r.gpus[0].uuid = unread_gpu_uuid(r.gpus[0]);
  EXPECT_TRUE(summarize_node(r, &b, GateOptions{}, "r.json", 0).gpu_keys.empty());
}

// --- rule 4: not-applicable codes ---------------------------------------------------------------

TEST(NotApplicableCode, SingleGpuCountsOnlyFromP2pOrNcclOnANodeWithOneGpuBySource) {
  const RunRecord one = make_record(1);
  const CheckResult p2p =
      unmeasurable("p2p", Status::skip, "peer copies need at least 2 GPUs; 1 selected", "single_gpu");
  EXPECT_FALSE(not_applicable_refusal(one, p2p, "single_gpu", std::nullopt));
  CheckResult nccl = p2p;
  nccl.name = "nccl_allreduce";
  EXPECT_FALSE(not_applicable_refusal(one, nccl, "single_gpu", std::nullopt));
  CheckResult health = p2p;
  health.name = "health";
  EXPECT_EQ(not_applicable_refusal(one, health, "single_gpu", std::nullopt),
            "single_gpu is not a code of the check health");
  EXPECT_EQ(not_applicable_refusal(make_record(2), p2p, "single_gpu", std::nullopt),
            "single_gpu, but the record's GPU list says 2 GPUs");
  RunRecord bus = one;
  bus.node.pci_gpus = std::vector<PciGpu>{{"0000:10:00.0", "0x2335", "0x030200", "nvidia"},
                                          {"0000:11:00.0", "0x2335", "0x030200", "nvidia"}};
  EXPECT_EQ(not_applicable_refusal(bus, p2p, "single_gpu", std::nullopt),
            "single_gpu, but the PCI bus says 2 GPUs");
  bus.node.pci_gpus->back().driver = "vfio-pci";  // handed to a VM: not this node's
  EXPECT_FALSE(not_applicable_refusal(bus, p2p, "single_gpu", std::nullopt));
  RunRecord labelled = one;
  labelled.node.k8s_labels["nvidia.com/gpu.count"] = "8";
  EXPECT_EQ(not_applicable_refusal(labelled, p2p, "single_gpu", std::nullopt),
            "single_gpu, but the label nvidia.com/gpu.count says 8 GPUs");
  RunRecord capacity = one;
  capacity.node.stack = make_stack(1);
  capacity.node.stack->k8s_gpu_capacity = StackFact::read("4");
  EXPECT_EQ(not_applicable_refusal(capacity, p2p, "single_gpu", std::nullopt),
            "single_gpu, but the Node's nvidia.com/gpu capacity says 4 GPUs");
  EXPECT_EQ(not_applicable_refusal(make_record(0), p2p, "single_gpu", std::nullopt),
            "single_gpu, but the record's GPU list says 0 GPUs");
}

TEST(NotApplicableCode, ASingleGpuSkipOnATwoGpuNodeIsInconclusiveAndSaysWhy) {
  RunRecord r = judged(2);
  r.checks = {gemm(2), unmeasurable("p2p", Status::skip, "peer copies need at least 2 GPUs; 1 selected",
                                    "single_gpu")};
  const Baseline b = h200_baseline(1), b2 = h200_baseline(2);
  const Verdict v = compare_record(r, &b2, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  ASSERT_NE(row_of(v, "p2p"), nullptr);
  EXPECT_FALSE(row_of(v, "p2p")->skip_accepted);
  EXPECT_EQ(row_of(v, "p2p")->reason,
            "peer copies need at least 2 GPUs; 1 selected (not accepted as not applicable: "
            "single_gpu, but the record's GPU list says 2 GPUs)");
  // The same skip on a one-GPU node is not applicable and passes.
  RunRecord one = judged(1);
  one.checks = {gemm(1), r.checks[1]};
  const Verdict passed = compare_record(one, &b, {});
  EXPECT_EQ(passed.outcome, Outcome::pass) << reasons_of(passed);
  // diff applies the same rule to the after-record.
  RunRecord before = r;
  before.checks = {gemm(2)};
  EXPECT_NE(diff_records(day_before(before), r, {}).outcome, Outcome::pass);
}

TEST(NotApplicableCode, RowRemapUnsupportedOnlyFromHealthOnAPreAmpereGpu) {
  RunRecord hopper = make_record(2);
  CheckResult health = unmeasurable("health", Status::skip, "no row remapping");
  EXPECT_EQ(not_applicable_refusal(hopper, health, "row_remap_unsupported", 0),
            "row_remap_unsupported, but GPU 0 is compute capability 9.0 (Ampere or newer remaps rows)");
  RunRecord volta = make_record(2);
  for (auto& g : volta.gpus) g.compute_capability = "7.0";
  EXPECT_FALSE(not_applicable_refusal(volta, health, "row_remap_unsupported", 1));
  EXPECT_FALSE(not_applicable_refusal(volta, health, "row_remap_unsupported", std::nullopt));
  volta.gpus[1].compute_capability = "8.0";  // the node scope covers every GPU
  EXPECT_TRUE(not_applicable_refusal(volta, health, "row_remap_unsupported", std::nullopt));
  EXPECT_FALSE(not_applicable_refusal(volta, health, "row_remap_unsupported", 0));
  volta.gpus[0].compute_capability = "";
  EXPECT_EQ(not_applicable_refusal(volta, health, "row_remap_unsupported", 0),
            "row_remap_unsupported, but GPU 0 has no compute capability in the record");
  CheckResult gemm_check = health;
  gemm_check.name = "gemm";
  EXPECT_TRUE(not_applicable_refusal(make_record(1), gemm_check, "row_remap_unsupported", 0));
  EXPECT_EQ(not_applicable_refusal(make_record(0), health, "row_remap_unsupported", std::nullopt),
            "row_remap_unsupported, but the record has no such GPU");
}

TEST(NotApplicableCode, PrecisionUnsupportedOnlyFromGemmOnAnArchitectureWithoutIt) {
  RunRecord ampere = make_record(1);
  ampere.gpus[0].compute_capability = "8.0";
  CheckResult fp8 =
      unmeasurable("gemm", Status::skip, "no requested precision runs on this GPU", "precision_unsupported");
  fp8.attributes["gemm.fp8.skipped"] = "FP8 (e4m3) tensor cores need compute capability 8.9 or newer";
  EXPECT_FALSE(not_applicable_refusal(ampere, fp8, "precision_unsupported", 0));
  CheckResult bf16 = fp8;
  bf16.attributes = {{"gemm.bf16.skipped", "BF16 tensor cores need 8.0"}};
  EXPECT_EQ(not_applicable_refusal(ampere, bf16, "precision_unsupported", 0),
            "precision_unsupported, but GPU 0 is compute capability 8.0 (it has bf16)");
  EXPECT_EQ(
      not_applicable_refusal(make_record(1), fp8, "precision_unsupported", 0),
      "precision_unsupported, but GPU 0 is compute capability 9.0 (it has every precision gpuqual runs)");
  CheckResult ran = fp8;
  ran.metrics.push_back(make_metric("gemm.fp16.tflops", "TFLOP/s", {300, 300, 300}, 0));
  EXPECT_EQ(not_applicable_refusal(ampere, ran, "precision_unsupported", 0),
            "precision_unsupported, but GPU 0 has the metric gemm.fp16.tflops");
  CheckResult unknown = fp8;
  unknown.attributes = {{"gemm.fp4.skipped", "?"}};
  EXPECT_TRUE(not_applicable_refusal(ampere, unknown, "precision_unsupported", 0));
  CheckResult hbm = fp8;
  hbm.name = "hbm";
  EXPECT_TRUE(not_applicable_refusal(ampere, hbm, "precision_unsupported", 0));
}

TEST(NotApplicableCode, NoHcaOnlyFromFabricWithNoHcaRecorded) {
  RunRecord r = make_record(1);
  CheckResult fabric = unmeasurable("fabric", Status::skip, "no InfiniBand/RoCE adapter", "no_hca");
  // Without the record's NIC list nothing bears out "no HCA": the check's word alone is not enough.
  EXPECT_EQ(not_applicable_refusal(r, fabric, "no_hca", std::nullopt),
            "no_hca, but the record has no stack inventory to bear it out");
  r.node.stack = make_stack(1);
  r.node.stack->nics.reset();
  r.node.stack->nics_reason = "/sys/class: Permission denied";
  EXPECT_EQ(not_applicable_refusal(r, fabric, "no_hca", std::nullopt),
            "no_hca, but the record's NIC list was not read (/sys/class: Permission denied)");
  r.node.stack.reset();
  CheckResult health = fabric;
  health.name = "health";
  EXPECT_EQ(not_applicable_refusal(r, health, "no_hca", std::nullopt),
            "no_hca is not a code of the check health");
  r.node.stack = make_stack(1);  // lists mlx5_0, class infiniband
  EXPECT_EQ(not_applicable_refusal(r, fabric, "no_hca", std::nullopt),
            "no_hca, but the record's stack lists the HCA mlx5_0");
  r.node.stack->nics->erase(r.node.stack->nics->begin());  // only an Ethernet NIC left
  EXPECT_FALSE(not_applicable_refusal(r, fabric, "no_hca", std::nullopt));
}

TEST(NotApplicableCode, NoGpuOnlyFromTheXidWatchOnANodeWithoutGpus) {
  RunRecord none = make_record(0);
  none.hardware_class = derive_hardware_class(none.gpus);
  CheckResult xid = unmeasurable("xid", Status::skip, "Xid capture unavailable", "no_gpu");
  EXPECT_FALSE(not_applicable_refusal(none, xid, "no_gpu", std::nullopt));
  EXPECT_EQ(not_applicable_refusal(make_record(1), xid, "no_gpu", std::nullopt),
            "no_gpu, but the record's GPU list says 1 GPU");
  RunRecord on_bus = none;
  on_bus.node.pci_gpus = std::vector<PciGpu>{{"0000:10:00.0", "0x2335", "0x030200", ""}};
  EXPECT_EQ(not_applicable_refusal(on_bus, xid, "no_gpu", std::nullopt),
            "no_gpu, but the PCI bus says 1 GPU");
  CheckResult health = xid;
  health.name = "health";
  EXPECT_TRUE(not_applicable_refusal(none, health, "no_gpu", std::nullopt));
}

TEST(NotApplicableCode, NotConfiguredOnlyFromStorageOrNetwork) {
  const RunRecord r = make_record(1);
  EXPECT_TRUE(
      not_applicable_refusal(r, unmeasurable("", Status::skip, "x"), "single_gpu", 0));  // "" pads the table
  for (const char* name : {"storage", "network"}) {
    EXPECT_FALSE(not_applicable_refusal(r, unmeasurable(name, Status::skip, "nothing configured"),
                                        "not_configured", 0));
  }
  EXPECT_TRUE(not_applicable_refusal(r, unmeasurable("hbm", Status::skip, "nothing configured"),
                                     "not_configured", 0));
  EXPECT_TRUE(not_applicable_refusal(r, unmeasurable("hbm", Status::skip, "x"), "no_nvml", 0));
  // That every code of the table names the checks it belongs to is a static_assert in
  // core/record/skip_reason.cpp: the build fails on a code no check sets.
}

// --- rule 4: severities from gpuqual's tables ------------------------------------------------------

TEST(TableSeverity, ARecordCannotLowerTheTablesSeverity) {
  const SeverityTable& t = judging_severity_table();
  EXPECT_EQ(table_severity(t, "xid.79"), Severity::fail);
  EXPECT_EQ(table_severity(t, "xid.999999"),
            t.unknown_xid.severity);                       // an unlisted Xid: the table's "unknown"
  EXPECT_EQ(table_severity(t, "xid.13"), Severity::info);  // the lower of severity and own_kernel_severity
  EXPECT_EQ(table_severity(t, "ecc.uncorrected_volatile"), Severity::fail);
  EXPECT_FALSE(table_severity(t, "gemm.wrong_answer"));  // not the table's: the record's severity stands
  EXPECT_FALSE(table_severity(t, "xid.seventy-nine"));
  // Raised, never lowered.
  const Finding warned{"xid.79", Severity::warn, 0, "GPU has fallen off the bus", "", 1.0};
  EXPECT_EQ(with_table_severity(t, warned).severity, Severity::fail);
  const Finding raised{"ecc.corrected_volatile", Severity::fail, 0, "2 corrected", "", 2.0};
  EXPECT_EQ(with_table_severity(t, raised).severity, Severity::fail);
}

TEST(TableSeverity, AnXid79MarkedWarnStillFailsCompareAndDiff) {
  RunRecord r = judged(1);
  CheckResult xid;
  xid.name = "xid";
  xid.status = Status::warn;
  xid.reason = "1 Xid event(s)";
  xid.findings.push_back(Finding{"xid.79", Severity::warn, 0, "GPU has fallen off the bus", "", 1.0});
  r.checks = {gemm(1), xid};
  const Baseline b = h200_baseline();
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].finding.severity, Severity::fail);
  EXPECT_EQ(v.findings[0].reason.rfind("severity fail (gpuqual's table; the record says warn)", 0), 0u)
      << v.findings[0].reason;
  // diff: present before too, and still a fail.
  EXPECT_EQ(diff_records(day_before(r), r, {}).outcome, Outcome::fail);
  // An unlisted Xid marked info is judged by the table's "unknown" entry (warn), not passed.
  RunRecord unknown = r;
  unknown.checks[1].findings[0] = Finding{"xid.999999", Severity::info, 0, "?", "", 1.0};
  unknown.checks[1].status = Status::pass;
  const Verdict warned = compare_record(unknown, &b, {});
  EXPECT_EQ(warned.outcome, Outcome::warn) << reasons_of(warned);
}

// The measuring checks' wrong-result codes are in the table too: a record that rates a GEMM's
// wrong result `info` (and its check `pass`) still fails; so does every such code.
TEST(TableSeverity, AWrongResultWrittenAsInfoStillFails) {
  const SeverityTable& t = judging_severity_table();
  for (const char* code :
       {"gemm.wrong_result", "hbm.wrong_result", "pcie.corrupt_copy", "p2p.corrupt_copy", "nccl.wrong_result",
        "memtest.bit_errors", "burnin.wrong_result", "burnin.wrong_first_product"}) {
    EXPECT_EQ(table_severity(t, code), Severity::fail) << code;
  }
  RunRecord r = judged(1);
  CheckResult g = gemm(1);
  g.findings.push_back(Finding{"gemm.wrong_result", Severity::info, 0, "3 elements differ", "", 3.0});
  r.checks = {g};
  const Baseline b = h200_baseline();
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail) << reasons_of(v);
}
