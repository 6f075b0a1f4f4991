#include "core/rules/driver_consistency.hpp"

#include <fmt/format.h>

#include <utility>

namespace gpuqual {

std::vector<Finding> driver_consistency_findings(const NodeFacts& n) {
  std::vector<Finding> out;
  const std::vector<std::pair<const char*, const std::string*>> releases{
      {"kernel module", &n.kernel_module_version},
      {"NVML", &n.nvml_driver_version},
      {"libcuda", &n.libcuda_version}};
  std::string listed, first;
  bool differ = false;
  for (const auto& [name, version] : releases) {
    if (version->empty()) continue;
    listed += fmt::format("{}{} {}", listed.empty() ? "" : ", ", name, *version);
    if (first.empty())
      first = *version;
    else if (*version != first)
      differ = true;
  }
  const std::string action =
      "reboot the node (or unload and reload the nvidia kernel modules) so that one driver runs";
  if (differ) {
    out.push_back(Finding{
        "driver.version_mismatch", Severity::fail, std::nullopt,
        fmt::format("driver versions disagree ({}): upgraded without a reboot or module reload", listed),
        action, std::nullopt});
  }
  if (!n.cuda_driver_version.empty() && !n.nvml_cuda_driver_version.empty() &&
      n.cuda_driver_version != n.nvml_cuda_driver_version) {
    out.push_back(Finding{
        "driver.version_mismatch", Severity::fail, std::nullopt,
        fmt::format("CUDA driver version {} (cudaDriverGetVersion) but NVML says the driver supports {}",
                    n.cuda_driver_version, n.nvml_cuda_driver_version),
        action, std::nullopt});
  }
  return out;
}

std::optional<std::string> reboot_note(const NodeFacts& before, const NodeFacts& after) {
  if (before.boot_id.empty() || after.boot_id.empty()) return std::nullopt;
  if (before.boot_id == after.boot_id) return "the node did not reboot between the runs (same boot id)";
  return fmt::format("the node rebooted between the runs (boot id {} → {})", before.boot_id.substr(0, 8),
                     after.boot_id.substr(0, 8));
}

}  // namespace gpuqual
