#pragma once
// The readings `health` must have to pass a GPU (a pass only on readings: docs/compare.md, "No false pass"):
// ECC mode, the volatile and aggregate uncorrected ECC counts, the memory-repair state (remapped rows from
// Ampere on, retired pages before), the PCIe link, and the Xid watch (node-wide, judged by the caller). Which
// product has which is the table below, keyed by architecture (compute capability major), as data: a field
// the architecture does not have is "not applicable" and says so; a field it has that NVML did not give is
// "not read" with NVML's own message (the reader's `unread` entry: "remapped_rows: NVML_ERROR_UNKNOWN ...").
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/health_snapshot.hpp"

namespace gpuqual {

struct CoreFieldRule {
  std::string field;     // "remapped_rows"
  int min_cc_major = 0;  // applies when min_cc_major <= major <= max_cc_major
  int max_cc_major = 99;
  std::string source;
};

struct CoreFieldGap {
  std::string field;
  bool not_applicable = false;  // the product has no such field (table), vs. not read
  std::string why;              // NVML's message, or the table's reason
  bool vgpu = false;            // not applicable because a vGPU guest is not given it
};

// The core fields of `g` that are not applicable or were not read. With ECC off, the ECC counts
// are not applicable (ecc.disabled judges the GPU). An unknown compute capability requires
// either memory-repair field. In a vGPU guest (virtualization_mode "vgpu") a field NVML answers
// NOT_SUPPORTED is not provided to the guest (`vgpu`): not applicable, but never read either, so
// the rules must not pass the GPU on it (docs/mig.md, "What does not apply").
std::vector<CoreFieldGap> core_field_gaps(const GpuHealthReading& g);

// NVML's message for a reading says NVML_ERROR_NOT_SUPPORTED: in a vGPU guest, what the guest is
// not given (the core fields above, the Xid watch in health_rules.cpp).
bool nvml_not_supported(std::string_view message);

// NVML's answer recorded in `text` ("ecc_mode: NVML_ERROR_GPU_IS_LOST: GPU is lost", a finding's
// detail, an inventory entry) is NVML_ERROR_GPU_IS_LOST: the GPU has fallen off the bus. Such a
// GPU fails the node (gpu.lost) wherever the record says so (docs/health.md).
bool nvml_answer_lost(std::string_view text);

}  // namespace gpuqual
