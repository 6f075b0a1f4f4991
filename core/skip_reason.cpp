#include "core/skip_reason.hpp"

#include <algorithm>
#include <array>

namespace gpuqual {

namespace {

constexpr std::array kCodes{
    NotApplicableCode{"single_gpu", "the node has one GPU: peer copies and an intra-node all-reduce need two"},
    NotApplicableCode{"precision_unsupported",
                      "no requested GEMM precision exists on this architecture (FP8 before sm_89, BF16 before sm_80)"},
    NotApplicableCode{"row_remap_unsupported", "row remapping does not exist before Ampere (retired pages are read instead)"},
    NotApplicableCode{"no_gpu",
                      "the run-wide Xid watch on a node whose inventory has no NVIDIA GPU (a node that should have "
                      "GPUs fails on gpu.missing instead)"},
    NotApplicableCode{"no_hca",
                      "the fabric check on a node without an InfiniBand/RoCE adapter (/sys/class/infiniband absent or "
                      "empty) and none expected: a suite that lists hcas or expect_hcas fails on fabric.hca_missing instead"},
    // Only the site knows which storage and endpoints a node must reach; a site that names none
    // asks for none (docs/storage-network.md, "Nothing configured"). A named site file that is
    // unreadable or malformed is an error, never this.
    NotApplicableCode{"not_configured",
                      "storage, network: the site configured no path or endpoint for this node (no site file, or "
                      "one that lists none)"},
};

}  // namespace

std::span<const NotApplicableCode> not_applicable_codes() { return kCodes; }

bool is_not_applicable_code(std::string_view code) {
  return std::any_of(kCodes.begin(), kCodes.end(), [&](const NotApplicableCode& c) { return c.code == code; });
}

bool skip_is_acceptable(const CheckResult& check, std::string_view reason_code, bool baseline_optional) {
  return is_not_applicable_code(reason_code) || check.optional || baseline_optional;
}

}  // namespace gpuqual
