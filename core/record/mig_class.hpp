#pragma once
// MIG classes (docs/mig.md, "Classes and floors"): a MIG device is judged as a class of its own,
// `<parent class>-mig-<profile>` (h100-sxm-80gb-mig-1g.10gb), so fleet-built baselines and the
// shipped floors work by slug for slices as they do for whole GPUs. The profile keeps its dot;
// it is the one '.' a slug may hold, between digits ("1g.10gb"), so a slug still names one file.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

// "1g.10gb", "7g.141gb": a GPU instance profile as NVML and the MIG manager name it
// (<slices>g.<GB>gb). Compute-instance profiles ("1c.3g.40gb") and media extensions ("+me")
// are not classes of their own.
bool is_mig_profile_name(std::string_view profile);

std::string mig_class_slug(std::string_view parent_slug, std::string_view profile);

struct MigClassParts {
  std::string parent;   // "h100-sxm-80gb"
  std::string profile;  // "1g.10gb"
};
// Splits "<parent>-mig-<profile>"; nullopt when `slug` is not one (a whole GPU's slug).
std::optional<MigClassParts> split_mig_class_slug(std::string_view slug);

// A valid MIG class slug: a valid whole-GPU parent slug, "-mig-", a profile; 63 characters at most.
bool is_mig_class_slug(std::string_view slug);

// The checks that run once per MIG device (docs/mig.md, "Measuring each slice"): gemm, hbm,
// memtest, pcie and burnin measure one CUDA device each, so on a GPU in MIG mode they run inside
// each MIG device (runner/run/device_parts.hpp) and a slice class's baseline asks them of each.
bool measured_per_mig_device(std::string_view check);

// The classes a node is qualified for (docs/mig.md, "Mixed nodes"): its whole GPUs' class when
// one GPU is not in MIG mode, and `<parent>-mig-<profile>` for each profile its MIG devices
// have, in order, each once.
std::vector<std::string> qualification_classes(const std::vector<GpuInfo>& gpus,
                                               const std::string& parent_slug);

}  // namespace gpuqual
