#include "device/nvml/nvml_inventory.hpp"

#include "device/nvml/nvml_devices.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

void add_nvml_facts(const NvmlSession& nvml, std::vector<GpuInfo>& gpus, NodeFacts& node) {
  if (!nvml.ok()) return;
  std::vector<NvmlDeviceRef> devices = scan_nvml_devices(nvml);
  std::vector<NvmlDeviceRef> untied;
  for (const auto& d : devices) {
    if (!d.opened() || !d.identified()) untied.push_back(d);
  }
  for (auto& g : gpus) {
    if (const NvmlDeviceRef* d = match_nvml_device(devices, g.uuid, g.pci_bus_id)) {
      fill_gpu_from_nvml(nvml, *d, g);
      continue;
    }
    const std::string answer = nvml_handle_answer(nvml, g.pci_bus_id);
    if (answer.empty()) continue;
    g.nvml_unread.push_back(answer);
    account_for_unopened(untied, answer);
  }
  for (const auto& d : untied) node.nvml_devices_unread.push_back(nvml_device_problem(d));
}

std::vector<GpuInfo> gpus_from_nvml(const NvmlSession& nvml, NodeFacts& node, std::string* count_error) {
  std::vector<GpuInfo> gpus;
  if (!nvml.ok()) return gpus;
  for (const auto& d : scan_nvml_devices(nvml, count_error)) {
    if (!d.opened() || !d.identified()) {
      node.nvml_devices_unread.push_back(nvml_device_problem(d));
      continue;
    }
    GpuInfo g;
    g.index = static_cast<int>(d.nvml_index);
    fill_gpu_from_nvml(nvml, d, g);
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace gpuqual
