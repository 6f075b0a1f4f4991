#pragma once
// Hardware class: derived from the inventory, never typed by hand unless overridden with
// --class. A slug of product, form factor and memory (h200-sxm-141gb), plus the GPU count per
// node as a separate key. Matches GPU Feature Discovery's node labels (nvidia.com/gpu.product,
// nvidia.com/gpu.memory, nvidia.com/gpu.count).
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

// GFD's sanitise(): characters outside [A-Za-z0-9-_. ] deleted, blank runs collapsed, blanks → '-'.
// "NVIDIA H100 80GB HBM3" → "NVIDIA-H100-80GB-HBM3".
std::string gfd_product_label(const std::string& nvml_name);

// Slug for one GPU from its NVML/CUDA product name and total memory:
// ("NVIDIA H200", 143771 MiB) → "h200-sxm-141gb"; unknown products → "unknown".
std::string hardware_class_slug(const std::string& product_name, std::uint64_t memory_mib);

// Class of a node: every GPU must share one slug, else the class is "mixed" (unjudgeable by
// --baseline auto). No GPUs → "unknown" with gpu_count 0.
HardwareClass derive_hardware_class(const std::vector<GpuInfo>& gpus);

// What is wrong with the GPUs' identity in a record, as the JSON field and the problem
// (docs/hardware-class.md, "Identity"): a GPU without a UUID, two with the same UUID or PCI bus
// id (one card counted twice), a `gpu_count` other than the number of GPUs, or a stated class
// that its GPUs do not give and that is not an override (`hardware_class.overridden`). A stated
// `unknown` is accepted: it names no baseline, and a product added to the table later must not
// make older records unreadable. nullopt when the record is consistent. The record reader
// refuses with it (exit 3).
struct GpuIdentityProblem {
  std::string field;  // "$.gpus[1].uuid", "$.hardware_class.slug"
  std::string problem;
};
std::optional<GpuIdentityProblem> gpu_identity_problem(const HardwareClass& stated,
                                                       const std::vector<GpuInfo>& gpus);

// The UUID `gpuqual inventory` and `run` write for a GPU that neither CUDA nor NVML could name:
// "unread:" and its bus id (else "unread:gpu<index>"). Unique within a record, as bus ids and
// indices are, so the record is not refused; never an identity across records (two machines
// can have a GPU at one bus id), which is_unread_gpu_uuid tells.
std::string unread_gpu_uuid(const GpuInfo& gpu);
bool is_unread_gpu_uuid(std::string_view uuid);

// One card's UUID however a record spells it (docs/hardware-class.md, identity): case, blanks
// around it and NVML's "GPU-" prefix do not make another card. Duplicates within a record, and
// one machine under several names across records (gate, matrix), are told by it; empty when
// nothing names the card.
std::string gpu_uuid_key(std::string_view uuid);

// The note every verdict of a record with an overridden class carries ("class h200-sxm-141gb
// is an override (--class); its GPUs give h100-sxm-80gb"), so no summary hides it; nullopt when
// the class was derived.
std::optional<std::string> class_override_note(const RunRecord& record);
// How many of a verdict's reasons are class_override_note's: every summary says an override
// (compare, diff and gate; docs/hardware-class.md).
std::size_t class_overrides_noted(const std::vector<std::string>& reasons);

// The GFD labels a node of this class carries (nvidia.com/gpu.product/.memory/.count).
std::map<std::string, std::string> gfd_labels(const HardwareClass& hw);

// The inverse: the class of a node from its GFD labels (product label and memory MiB give the
// slug exactly as the NVML name would; count gives gpu_count). Missing product or memory →
// "unknown". Other labels are ignored.
HardwareClass hardware_class_from_gfd_labels(const std::map<std::string, std::string>& labels);

// Marketed memory size in GB from the MiB the driver reports, given the sizes a product ships
// in: the nearest capacity C with 0.90 <= (MiB/1024)/C <= 1.02, else ceil(MiB/1024).
int marketing_memory_gb(std::uint64_t memory_mib, std::span<const int> capacities_gb);

// A slug gpuqual accepts from --class: 1-63 chars of [a-z0-9-], starting and ending with a
// letter or digit. It names a file (baselines/<slug>.yaml), so no '/', '.' or blanks.
bool is_valid_class_slug(std::string_view slug);

}  // namespace gpuqual
