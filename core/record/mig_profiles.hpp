#pragma once
// NVIDIA's MIG profiles for the GPUs gpuqual knows (docs/mig.md, "Classes and floors"): per parent
// class, each GPU instance profile's compute slices (of 7) and memory slices (of 8), from the NVIDIA
// MIG user guide, "Supported MIG Profiles"
// (docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html), and the parent's
// SM count (NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs; NVIDIA H100 Tensor Core
// GPU Architecture whitepaper: 132 SMs on SXM5, 114 on PCIe; the H200 is the H100 SXM's GH100 with
// more memory). A profile's name says its compute slices and its memory in GB (`3g.40gb`); a media
// extension (`+me`) changes neither.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpuqual {

struct MigProfileSpec {
  std::string_view name;  // "3g.40gb"
  int compute_slices = 0;
  int memory_slices = 0;
};

struct MigParentSpec {
  std::string_view slug;  // the parent's class, "h100-sxm-80gb"
  int sm_count = 0;       // the whole GPU's SMs
  int compute_slices = 7;
  int memory_slices = 8;
  std::span<const MigProfileSpec> profiles;
  // The profile named `profile` (a "+me" suffix ignored), or null.
  const MigProfileSpec* find(std::string_view profile) const;
};

// The table's entry for a parent class, or null when gpuqual does not know its profiles.
const MigParentSpec* mig_parent_spec(std::string_view parent_slug);

// A profile name split: `<compute slices>g.<GB>gb`, with any `+me`-like suffix dropped.
struct MigProfileName {
  int compute_slices = 0;
  int memory_gb = 0;
};
std::optional<MigProfileName> parse_mig_profile(std::string_view profile);

// The slice class GPU Feature Discovery's single strategy labels a node with: the product label
// `<parent product>-MIG-<profile>` (`NVIDIA-H100-80GB-HBM3-MIG-1g.10gb`), whose gpu.memory is the
// slice's. The parent's class is the table's parent whose product matches and that has the
// profile; nullopt when the label names no MIG profile or no known parent has it.
std::optional<std::string> mig_slice_class_from_product_label(std::string_view product);

}  // namespace gpuqual
