#pragma once
// Dotted version numbers as the CUDA/driver compatibility rules compare them: numeric, component
// by component, missing trailing components count as zero ("12.4" == "12.4.0"), exactly as
// libnvidia-container's dsl_compare_version does. Only digits and dots are accepted.
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

struct DottedVersion {
  std::vector<int> parts;

  // "12.4" → {12, 4}; "580.95.05" → {580, 95, 5}; nullopt for "", "12.", "v12", "12.4-1".
  static std::optional<DottedVersion> parse(std::string_view text);
  // CUDA's integer encoding (cudaDriverGetVersion, cudaRuntimeGetVersion): 12080 → 12.8.
  static std::optional<DottedVersion> from_cuda_int(int encoded);

  int major() const { return parts.empty() ? 0 : parts[0]; }
  int minor() const { return parts.size() < 2 ? 0 : parts[1]; }
  // As written from the parts, without leading zeros ("580.95.5" for "580.95.05"): use the
  // original text for display where it matters.
  std::string str() const;
  // "12.8" from "12.8.1".
  DottedVersion major_minor() const { return DottedVersion{{major(), minor()}}; }

  friend std::strong_ordering operator<=>(const DottedVersion& a, const DottedVersion& b);
  friend bool operator==(const DottedVersion& a, const DottedVersion& b) { return (a <=> b) == 0; }
};

// A Linux driver version as NVML prints it: 2 or 3 components with a 3-digit branch
// ("580.95.05", "570.26", "450.80.02"). nullopt otherwise.
std::optional<DottedVersion> parse_driver_version(std::string_view text);

}  // namespace gpuqual
