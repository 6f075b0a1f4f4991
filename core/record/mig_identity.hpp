#pragma once
// Whether the MIG devices a record lists are consistent (docs/mig.md, "Inventory"): a MIG device is
// one slice of one GPU, so its identity and size cannot contradict themselves. The record reader
// refuses a record (exit 3) with the first problem:
// - two compute instances naming one MIG UUID (on one GPU or on two), two GPU instances of one GPU
//   with one id, or two compute instances of one GPU instance with one id (NVML's ids are unique
//   there: core/record/mig_inventory.hpp);
// - a GPU instance whose memory is not what its profile names (`3g.40gb` is about 40 GB: NVIDIA
//   MIG user guide, "MIG Device Names"), or, on a GPU whose profiles gpuqual knows
//   (core/record/mig_profiles.hpp), a profile the GPU does not have, or a placement spanning
//   another number of memory slices than the profile's;
// - a compute instance whose profile is not of its GPU instance (`1c.3g.40gb` inside a 3g.40gb),
//   or whose SM count is not its share of the known parent's SMs (a `1g` is 1/7 of them).
// Sizes are compared with room for what the driver reserves (a 1g.10gb has 9.75 GiB): only a
// contradiction, never a rounding, is refused.
#include <optional>
#include <vector>

#include "core/record/hardware_class.hpp"
#include "core/record/record.hpp"

namespace gpuqual {

std::optional<GpuIdentityProblem> mig_identity_problem(const std::vector<GpuInfo>& gpus);

}  // namespace gpuqual
