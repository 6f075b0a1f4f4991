#include "tests/support/class_floors.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/baseline/baseline.hpp"
#include "core/record/hardware_class.hpp"

namespace gpuqual {

std::optional<double> ClassFloors::of(const std::string& metric) const {
  const auto it = floor.find(metric);
  if (it == floor.end()) return std::nullopt;
  return it->second;
}

std::string ClassFloors::provisional(const std::string& metric) const {
  return metric.starts_with("pcie.") ? pcie_provisional : "";
}

FloorCheck check_floor(double value, double floor, std::string_view provisional) {
  if (value >= floor) return FloorCheck::meets;
  return provisional.empty() ? FloorCheck::below : FloorCheck::below_provisional;
}

std::string pcie_floor_provisional(bool in_vm) {
  if (!in_vm) return "";
  return "this machine is a virtual machine (CPU hypervisor flag) with the GPU passed through: PCIe copies "
         "may land near the floor for a platform reason (virtualised root complex, IOMMU) until a window has "
         "measured them there";
}

bool cpuinfo_says_hypervisor(std::string_view cpuinfo) {
  std::istringstream lines{std::string(cpuinfo)};
  for (std::string line; std::getline(lines, line);) {
    // x86 lists CPU features on "flags\t\t: fpu vme ... hypervisor ..." lines.
    const auto colon = line.find(':');
    if (!line.starts_with("flags") || colon == std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    for (std::string w; words >> w;) {
      if (w == "hypervisor") return true;
    }
  }
  return false;
}

bool machine_is_vm() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return cpuinfo_says_hypervisor(text.str());
}

std::optional<ClassFloors> class_floors(const std::string& slug, const std::string& baselines_dir,
                                        bool in_vm) {
  namespace fs = std::filesystem;
  // The path `--baseline auto` takes for a class without a measured baseline.
  const std::string stem = resolve_baseline("auto", slug, (fs::path(baselines_dir) / "floors").string());
  if (stem.empty()) return std::nullopt;
  const Baseline b = load_baseline(stem);
  ClassFloors f;
  f.slug = slug;
  f.source = stem;
  for (const auto& m : b.metrics) {
    if (m.direction == Direction::higher) f.floor[m.name] = m.expected * (1 - m.tolerance);
  }
  f.pcie_provisional = pcie_floor_provisional(in_vm);
  return f;
}

std::string gpu_class_slug(const std::string& cuda_name, std::size_t total_memory_bytes) {
  return hardware_class_slug(cuda_name, total_memory_bytes >> 20);
}

}  // namespace gpuqual
