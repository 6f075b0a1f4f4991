#pragma once
// A GPU's MIG state from NVML (docs/mig.md, "Inventory"): nvmlDeviceGetMigMode's current and
// pending modes, and, in MIG mode, every MIG device the driver has (one per compute instance)
// with its GPU instance's profile and placement. Only reads: gpuqual never creates, destroys
// or reconfigures an instance, and never changes the mode.
#include <nvml.h>

#include <optional>

#include "core/record/mig_inventory.hpp"

namespace gpuqual {

struct NvmlApi;

// nullopt when the driver lacks nvmlDeviceGetMigMode or the GPU does not support MIG
// (NVML_ERROR_NOT_SUPPORTED): no MIG is a fact of the card, not an unread one. A GPU in MIG
// mode whose instances cannot be listed keeps the modes and says why in `unread`.
std::optional<MigState> read_mig_state(const NvmlApi& api, nvmlDevice_t device);

// "MIG 1g.10gb" (NVML's profile name) → "1g.10gb"; a compute instance that spans fewer slices
// than its GPU instance is "<c>c.<gpu instance profile>" (NVIDIA MIG user guide, "MIG Device
// Names": 1c.3g.20gb).
std::string mig_profile_from_nvml_name(const char* name);
std::string mig_compute_profile(const std::string& gpu_instance_profile, unsigned ci_slices,
                                unsigned gi_slices);

}  // namespace gpuqual
