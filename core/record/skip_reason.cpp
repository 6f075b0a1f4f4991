#include "core/record/skip_reason.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gpuqual {

namespace {

constexpr std::array kCodes{
    NotApplicableCode{"single_gpu",
                      "the node has one GPU: peer copies and an intra-node all-reduce need two",
                      {"p2p", "nccl_allreduce"}},
    NotApplicableCode{
        "precision_unsupported",
        "no requested GEMM precision exists on this architecture (FP8 before sm_89, BF16 before sm_80)",
        {"gemm", ""}},
    NotApplicableCode{"row_remap_unsupported",
                      "row remapping does not exist before Ampere (retired pages are read instead)",
                      {"health", ""}},
    NotApplicableCode{
        "no_gpu",
        "the run-wide Xid watch, or the stack check, on a node whose inventory has no NVIDIA GPU (a "
        "node that should have GPUs fails on gpu.missing instead)",
        {"xid", "stack"}},
    NotApplicableCode{
        "no_hca",
        "the fabric check on a node without an InfiniBand/RoCE adapter (/sys/class/infiniband absent or "
        "empty) and none expected: a suite that lists hcas or expect_hcas fails on fabric.hca_missing "
        "instead",
        {"fabric", ""}},
    // Only the site knows which storage and endpoints a node must reach; a site that names none
    // asks for none (docs/storage-network.md, "Nothing configured"). A named site file that is
    // unreadable or malformed is an error, never this.
    NotApplicableCode{
        "not_configured",
        "storage, network: the site configured no path or endpoint for this node (no site file, or "
        "one that lists none)",
        {"storage", "network"}},
    // MIG, GPU sharing and vGPU (docs/mig.md): what a MIG instance or a vGPU guest does not
    // provide, and the layout and sharing checks on a node that uses neither.
    NotApplicableCode{"mig_instance",
                      "a GPU given to the run is in MIG mode: peer copies and NCCL do not run between MIG "
                      "devices (NVIDIA MIG user guide, \"CUDA Device Enumeration\")",
                      {"p2p", "nccl_allreduce"}},
    NotApplicableCode{
        "mig_disabled", "no GPU of the node is in MIG mode, now or after a pending reset", {"mig", ""}},
    NotApplicableCode{"no_gpu_sharing",
                      "no time-slicing or MPS is configured: no replicas label, sharing strategy or device "
                      "plugin sharing config",
                      {"gpu_sharing", ""}},
    // Dynamic Resource Allocation (docs/kubernetes.md, "DRA"): a cluster whose GPUs reach pods
    // through the device plugin has no slices to check.
    NotApplicableCode{
        "no_dra",
        "the cluster serves no resource.k8s.io API, or has no NVIDIA DRA driver (no DeviceClass "
        "gpu.nvidia.com and no ResourceSlice of it)",
        {"dra", ""}},
    NotApplicableCode{
        "vgpu_guest",
        "the GPUs are vGPUs of a guest VM: peer-to-peer copies between vGPUs, and the health "
        "readings NVML answers NOT_SUPPORTED there (ECC, memory repair, PCIe link, events), are "
        "not provided",
        {"p2p", "health"}},
};

// The compute capability each GEMM precision needs (tensor cores: FP16 Volta 7.0, INT8 Turing
// 7.5, TF32 and BF16 Ampere 8.0, FP8 e4m3 Ada/Hopper 8.9; FP64/FP32 run everywhere), from
// NVIDIA's CUDA GPU Compute Capability table and the architecture whitepapers. The GEMM check
// skips a precision by the same rows (gemm_precision_need), and the judging of its
// precision_unsupported skips reads them (core/verdict/skip_acceptance.cpp).
struct PrecisionNeed {
  std::string_view name;
  std::pair<int, int> need;  // (major, minor)
};
constexpr std::array kPrecisionNeeds{PrecisionNeed{"fp64", {0, 0}}, PrecisionNeed{"fp32", {0, 0}},
                                     PrecisionNeed{"fp16", {7, 0}}, PrecisionNeed{"int8", {7, 5}},
                                     PrecisionNeed{"tf32", {8, 0}}, PrecisionNeed{"bf16", {8, 0}},
                                     PrecisionNeed{"fp8", {8, 9}}};

// Every code names a check that sets it: a code no check may set could never be accepted.
constexpr bool every_code_has_a_check() {
  return std::all_of(kCodes.begin(), kCodes.end(),
                     [](const NotApplicableCode& c) { return !c.checks[0].empty(); });
}
static_assert(every_code_has_a_check());

}  // namespace

std::optional<std::pair<int, int>> gemm_precision_need(std::string_view name) {
  auto it = std::find_if(kPrecisionNeeds.begin(), kPrecisionNeeds.end(),
                         [&](const auto& p) { return p.name == name; });
  if (it == kPrecisionNeeds.end()) return std::nullopt;
  return it->need;
}

const NotApplicableCode* find_not_applicable_code(std::string_view code) {
  auto it =
      std::find_if(kCodes.begin(), kCodes.end(), [&](const NotApplicableCode& c) { return c.code == code; });
  return it == kCodes.end() ? nullptr : &*it;
}

bool is_not_applicable_code(std::string_view code) { return find_not_applicable_code(code) != nullptr; }

}  // namespace gpuqual
