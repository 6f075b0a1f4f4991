#pragma once
// Which GPU of the after-record is which GPU of the before-record. By UUID (the GPU itself), or
// by PCI bus id when either side has no UUID; never by index, which can change across a driver
// upgrade or a reboot. A GPU whose UUID changed in the same slot is a different card: the old one
// is missing and a new one appeared.
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct GpuPair {
  int before = 0;            // GpuInfo::index in the before-record
  std::optional<int> after;  // index in the after-record; empty: missing after
  std::string matched_by;    // "uuid" or "pci_bus_id"; empty when missing
};

struct GpuMatching {
  std::vector<GpuPair> pairs;   // one per before-GPU, in before order
  std::vector<int> only_after;  // after-GPUs no before-GPU matched
  std::optional<int> after_for(int before_index) const;
  std::optional<int> before_for(int after_index) const;
};

GpuMatching match_gpus(const std::vector<GpuInfo>& before, const std::vector<GpuInfo>& after);

// "0000:19:00.0", "00000000:19:00.0" and "0000:19:00.0 " name the same slot. Empty when the
// text is not a PCI address (it is then compared as given, lower-cased).
std::string normalize_pci_bus_id(const std::string& text);

}  // namespace gpuqual
