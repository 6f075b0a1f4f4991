#pragma once
// MIG classes (docs/mig.md, "Classes and floors"): a MIG device is judged as a class of its own,
// `<parent class>-mig-<profile>` (h100-sxm-80gb-mig-1g.10gb), so fleet-built baselines and the
// shipped floors work by slug for slices as they do for whole GPUs. The profile keeps its dots;
// they are the only '.' a slug may hold, between digits ("1g.10gb", "1c.3g.40gb"), so a slug
// still names one file.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/record/mig_inventory.hpp"
#include "core/record/record.hpp"

namespace gpuqual {

// "1g.10gb", "7g.141gb": a GPU instance profile as NVML and the MIG manager name it
// (<slices>g.<GB>gb). Media extensions ("+me") are not classes of their own.
bool is_mig_profile_name(std::string_view profile);

// "1c.3g.40gb": a compute instance that spans fewer compute slices than its GPU instance
// (<compute slices>c.<GPU instance profile>; NVIDIA MIG user guide, "MIG Device Names"). It has
// the GPU instance's memory but only its own share of the SMs, so it is a class of its own
// (docs/mig.md, "Classes and floors"), never judged against the whole GPU instance's figures.
bool is_mig_compute_profile_name(std::string_view profile);

// The profile that names the class of MIG device `ci` of GPU instance `gi`: the compute
// instance's own profile when it is a compute-instance profile ("1c.3g.40gb"), else the GPU
// instance's ("3g.40gb": a compute instance that spans its GPU instance is the slice itself).
std::string mig_device_profile(const MigGpuInstance& gi, const MigComputeInstance& ci);

// The class of MIG device `ci` of `gi` on a GPU of class `parent_slug`:
// mig_class_slug(parent_slug, mig_device_profile(gi, ci)).
std::string mig_device_class_slug(std::string_view parent_slug, const MigGpuInstance& gi,
                                  const MigComputeInstance& ci);

std::string mig_class_slug(std::string_view parent_slug, std::string_view profile);

struct MigClassParts {
  std::string parent;   // "h100-sxm-80gb"
  std::string profile;  // "1g.10gb"
};
// Splits "<parent>-mig-<profile>" (a GPU instance or a compute-instance profile); nullopt when
// `slug` is not one (a whole GPU's slug).
std::optional<MigClassParts> split_mig_class_slug(std::string_view slug);

// A valid MIG class slug: a valid whole-GPU parent slug, "-mig-", a profile; 63 characters at most.
bool is_mig_class_slug(std::string_view slug);

// The checks that run once per MIG device (docs/mig.md, "Measuring each slice"): gemm, hbm,
// memtest, pcie and burnin measure one CUDA device each, so on a GPU in MIG mode they run inside
// each MIG device (runner/run/device_parts.hpp) and a slice class's baseline asks them of each.
bool measured_per_mig_device(std::string_view check);

// The classes a node is qualified for (docs/mig.md, "Mixed nodes"): its whole GPUs' class when
// one GPU is not in MIG mode, and `<parent>-mig-<profile>` for each profile its MIG devices
// have (mig_device_profile: a compute instance's own where it is one), in order, each once.
std::vector<std::string> qualification_classes(const std::vector<GpuInfo>& gpus,
                                               const std::string& parent_slug);

}  // namespace gpuqual
