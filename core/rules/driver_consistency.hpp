#pragma once
// One driver, one version: the loaded kernel module (/proc/driver/nvidia/version), the NVML
// library and the libcuda the CUDA runtime loaded must be the same release, and the CUDA
// version NVML says the driver supports must be the one cudaDriverGetVersion returned. A
// mismatch is a driver upgraded without a reboot or a module reload: `driver.version_mismatch`
// (fail), naming each version. Judged from the record's node facts; a version not read ("") is
// not compared.
//
// Whether the node rebooted between two runs is told by the kernel's boot id.
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

std::vector<Finding> driver_consistency_findings(const NodeFacts& node);

// "the node rebooted between the runs (boot id a1b2… → c3d4…)", "the node did not reboot between
// the runs (same boot id)", or nullopt when a record has no boot id.
std::optional<std::string> reboot_note(const NodeFacts& before, const NodeFacts& after);

}  // namespace gpuqual
