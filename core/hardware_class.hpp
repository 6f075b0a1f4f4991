#pragma once
// Hardware class: derived from the inventory, never typed by hand unless overridden with
// --class. A slug of product, form factor and memory (h200-sxm-141gb), plus the GPU count per
// node as a separate key. Matches GPU Feature Discovery's node labels (nvidia.com/gpu.product,
// nvidia.com/gpu.memory, nvidia.com/gpu.count).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/record.hpp"

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

// The GFD labels a node of this class carries (nvidia.com/gpu.product/.memory/.count).
std::map<std::string, std::string> gfd_labels(const HardwareClass& hw);

}  // namespace gpuqual
