#pragma once
// The CUDA ↔ driver compatibility rules of the `compat` preflight, over the table in
// baselines/cuda-compat.yaml (NVIDIA release notes Table 3 and the CUDA Compatibility guide).
// Pure C++: the container probes call judge_cuda_on_driver()/judge_image() for image inspection.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/dotted_version.hpp"
#include "core/record/status.hpp"

namespace gpuqual {

struct CudaCompatTable {
  std::map<DottedVersion, DottedVersion> releases;  // toolkit X.Y.Z → minimum driver (full compatibility)
  std::map<std::string, std::string> release_text;  // toolkit "X.Y.Z" → driver as written ("580.95.05")
  std::map<int, DottedVersion> minor_version;  // CUDA major → minimum driver (minor-version compatibility)
  std::map<int, std::string> minor_version_text;
  std::string source;
  std::string origin;  // the file it was read from

  // Minimum driver for full compatibility with toolkit `cuda`: the GA row of its X.Y (a driver
  // that supports CUDA X.Y runs every X.Y.Z), as written; nullopt when X.Y is not in the table
  // (newer than the table, or 12.7).
  std::optional<std::string> full_minimum(const DottedVersion& cuda) const;
  // The driver the toolkit X.Y.Z shipped with (highest listed X.Y.* at or below it).
  std::optional<std::string> bundled_driver(const DottedVersion& cuda) const;
  std::optional<std::string> minor_minimum(int cuda_major) const;
  // The newest CUDA X.Y whose full minimum `driver` meets (what the driver supports natively).
  std::optional<DottedVersion> newest_cuda_for(const DottedVersion& driver) const;
};

inline constexpr const char* kCudaCompatFile = "cuda-compat.yaml";

// Throws InputError(origin, "releases.13.0.2" / "line N", problem).
CudaCompatTable parse_cuda_compat_yaml(const std::string& text, const std::string& origin);
CudaCompatTable load_cuda_compat_table(const std::string& path);

// Which rule decided whether CUDA `cuda` runs on the host driver.
enum class CompatRule {
  driver_reports_cuda,  // the driver's own CUDA version (cudaDriverGetVersion) covers it
  toolkit_table,        // driver >= the release's minimum (full compatibility)
  minor_version,        // same major, driver >= the major's minimum: runs with a limited feature set
  forward_compat,       // an older branch, allowed only with cuda-compat libraries (data-center GPUs)
  too_old,              // none of the above
  unknown_release,      // CUDA X.Y not in the table and not covered by the driver's CUDA version
  no_driver,            // no driver version to judge against
};
std::string_view to_string(CompatRule rule);

struct CompatDecision {
  Status status = Status::error;  // pass, warn (minor-version / forward compat), fail, skip (no driver)
  CompatRule rule = CompatRule::no_driver;
  std::string explanation;     // one sentence naming the versions and the rule
  std::string minimum_driver;  // full-compatibility minimum, when known
  std::string minor_minimum_driver;
};

struct HostDriver {
  std::optional<DottedVersion> driver;  // NVML / /proc driver version
  std::string driver_text;              // as printed ("580.95.05")
  std::optional<DottedVersion> cuda;    // cudaDriverGetVersion (what the driver supports)
};

// Judges toolkit/runtime `cuda` on `host`. `forward_compat_available`: cuda-compat libraries
// are known to be in place (the image ships them, or /usr/local/cuda/compat exists for gpuqual).
CompatDecision judge_cuda_on_driver(const CudaCompatTable& table, const DottedVersion& cuda,
                                    const HostDriver& host, bool forward_compat_available);

}  // namespace gpuqual
