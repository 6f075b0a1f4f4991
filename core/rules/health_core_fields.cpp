#include "core/rules/health_core_fields.hpp"

#include <fmt/format.h>

namespace gpuqual {

namespace {

constexpr const char* kMemErrorDoc =
    "NVIDIA GPU Memory Error Management (row remapping from A100; page retirement before)";
constexpr const char* kNvml = "NVML reference";

int cc_major_of(const std::string& cc) {
  int major = 0;
  for (char c : cc) {
    if (c < '0' || c > '9') break;
    major = major * 10 + (c - '0');
  }
  return major;
}

// NVML's message for a reading, from the reader's "<what>: <message>" entries.
std::string nvml_message(const GpuHealthReading& g, const std::vector<std::string>& whats) {
  for (const auto& u : g.unread) {
    for (const auto& what : whats) {
      if (u.rfind(what + ":", 0) == 0) return u.substr(what.size() + 2);
    }
  }
  return "no reading and no NVML message";
}

// The shipped table. Sources: NVIDIA "GPU Memory Error Management" (row remapping replaces
// dynamic page retirement from the A100, compute capability 8.0), NVML reference.
const std::vector<CoreFieldRule>& health_core_field_rules() {
  static const std::vector<CoreFieldRule> rules{
      {"ecc_mode", 0, 99, kNvml},
      {"ecc_volatile_uncorrected", 0, 99, kNvml},
      {"ecc_aggregate_uncorrected", 0, 99, kNvml},
      {"remapped_rows", 8, 99, kMemErrorDoc},
      {"retired_pages", 0, 7, kMemErrorDoc},
      {"pcie_link", 0, 99, kNvml},
  };
  return rules;
}

// In a vGPU guest NVML answers NOT_SUPPORTED for what the guest is not given (NVIDIA vGPU
// software Management SDK User Guide, "Managing vGPUs from a guest VM": some properties of the
// physical GPU do not apply to a vGPU). Such a field is not provided, not unread. The ECC counts
// follow the ECC mode: with the mode not provided, the reader never asks for them.
void mark_not_provided_to_vgpu(std::vector<CoreFieldGap>& gaps) {
  bool ecc_mode_not_provided = false;
  for (auto& gap : gaps) {
    if (gap.not_applicable) continue;
    const bool unsupported = nvml_not_supported(gap.why);
    const bool ecc_count = gap.field.starts_with("ecc_") && gap.field != "ecc_mode";
    if (!unsupported && !(ecc_count && ecc_mode_not_provided)) continue;
    if (gap.field == "ecc_mode") ecc_mode_not_provided = true;
    gap.not_applicable = gap.vgpu = true;
    gap.why = unsupported ? "not provided to a vGPU guest (" + gap.why + ")"
                          : "not provided to a vGPU guest (ECC mode is not)";
  }
}

}  // namespace

bool nvml_not_supported(std::string_view message) {
  return message.find("NOT_SUPPORTED") != std::string_view::npos;
}

// NVML's status name, which nvml_error_text (device/nvml/nvml_library.cpp) writes first; the
// library's own text for it ("GPU is lost") is not enough, another status's text may say "lost".
bool nvml_answer_lost(std::string_view text) { return text.find("GPU_IS_LOST") != std::string_view::npos; }

std::vector<CoreFieldGap> core_field_gaps(const GpuHealthReading& g) {
  const int major = cc_major_of(g.compute_capability);
  const bool ecc_off = g.ecc_enabled && !*g.ecc_enabled;
  std::vector<CoreFieldGap> gaps;
  const bool repair_read = (g.remapped_rows_uncorrectable && g.remap_pending) || g.retired_pages_dbe;
  for (const auto& rule : health_core_field_rules()) {
    const bool memory_repair = rule.field == "remapped_rows" || rule.field == "retired_pages";
    if (major > 0 && (major < rule.min_cc_major || major > rule.max_cc_major)) {
      gaps.push_back(
          {rule.field, true,
           fmt::format("not applicable to compute capability {} ({})", g.compute_capability, rule.source)});
      continue;
    }
    if (major == 0 && memory_repair) {
      // Architecture unknown: either mechanism counts; report only when neither was read.
      if (!repair_read && rule.field == "remapped_rows") {
        gaps.push_back({"remapped_rows or retired_pages", false,
                        nvml_message(g, {"remapped_rows", "retired_pages", "retired_pages_dbe"})});
      }
      continue;
    }
    if (rule.field == "ecc_mode") {
      if (!g.ecc_enabled) gaps.push_back({rule.field, false, nvml_message(g, {"ecc_mode"})});
    } else if (rule.field == "ecc_volatile_uncorrected" || rule.field == "ecc_aggregate_uncorrected") {
      const auto& value =
          rule.field == "ecc_volatile_uncorrected" ? g.ecc_volatile_uncorrected : g.ecc_aggregate_uncorrected;
      if (ecc_off) {
        gaps.push_back({rule.field, true, "not applicable: ECC is off"});
      } else if (!value) {
        gaps.push_back({rule.field, false, nvml_message(g, {rule.field, "ecc_counters"})});
      }
    } else if (rule.field == "remapped_rows") {
      if (!g.remapped_rows_uncorrectable || !g.remap_pending) {
        gaps.push_back({rule.field, false, nvml_message(g, {"remapped_rows"})});
      }
    } else if (rule.field == "retired_pages") {
      if (!g.retired_pages_dbe)
        gaps.push_back({rule.field, false, nvml_message(g, {"retired_pages_dbe", "retired_pages"})});
    } else if (rule.field == "pcie_link") {
      if (!g.pcie_gen || !g.pcie_width)
        gaps.push_back({rule.field, false, nvml_message(g, {"pcie_link", "pcie_gen", "pcie_width"})});
    }
  }
  if (g.virtualization_mode == "vgpu") mark_not_provided_to_vgpu(gaps);
  return gaps;
}

}  // namespace gpuqual
