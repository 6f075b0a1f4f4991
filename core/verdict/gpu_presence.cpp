#include "core/verdict/gpu_presence.hpp"

#include <fmt/format.h>

#include <set>

#include "core/record/gpu_match.hpp"

namespace gpuqual {

namespace {

std::string who(const PciGpu& p) {
  return fmt::format("NVIDIA GPU at {} (device {}, class {})", p.bus_id,
                     p.device_id.empty() ? "?" : p.device_id, p.pci_class);
}

}  // namespace

// A subset was handed to the process unless the variable says "all" (the container toolkit's
// spelling for every GPU).
bool visible_devices_subset(const NodeFacts& n) {
  if (n.visible_devices.empty()) return false;
  const auto eq = n.visible_devices.find('=');
  return eq == std::string::npos || n.visible_devices.substr(eq + 1) != "all";
}

std::vector<Finding> gpu_presence_findings(const RunRecord& r) {
  std::vector<Finding> out;
  if (!r.node.pci_gpus) return out;
  std::set<std::string> visible;
  bool every_gpu_has_bus_id = true;
  for (const auto& g : r.gpus) {
    if (g.pci_bus_id.empty())
      every_gpu_has_bus_id = false;
    else
      visible.insert(normalize_pci_bus_id(g.pci_bus_id));
  }
  std::vector<const PciGpu*> unseen_on_nvidia;
  for (const auto& p : *r.node.pci_gpus) {
    if (visible.count(normalize_pci_bus_id(p.bus_id))) continue;
    if (p.driver.empty()) {
      out.push_back(
          Finding{"gpu.not_visible", Severity::fail, std::nullopt,
                  who(p) + " is on the PCI bus with no driver bound: NVML and CUDA cannot see it",
                  "check the driver's kernel log (dmesg) for this bus id; reseat or RMA if it does not bind",
                  std::nullopt});
    } else if (p.driver != "nvidia") {
      out.push_back(Finding{
          "gpu.passthrough", Severity::info, std::nullopt,
          fmt::format("{} is bound to {}, not to the NVIDIA driver (handed to a VM?)", who(p), p.driver), "",
          std::nullopt});
    } else {
      unseen_on_nvidia.push_back(&p);
    }
  }
  if (unseen_on_nvidia.empty()) return out;
  if (visible_devices_subset(r.node)) {
    std::string ids;
    for (const PciGpu* p : unseen_on_nvidia) ids += (ids.empty() ? "" : ", ") + p->bus_id;
    out.push_back(Finding{"gpu.outside_allocation", Severity::info, std::nullopt,
                          fmt::format("{} GPU(s) on the bus are outside this run's {} ({}): not judged",
                                      unseen_on_nvidia.size(), r.node.visible_devices, ids),
                          "", static_cast<double>(unseen_on_nvidia.size())});
    return out;
  }
  // Without a bus id for every listed GPU, only the count can be compared.
  if (!every_gpu_has_bus_id) {
    const std::size_t on_bus = visible.size() + unseen_on_nvidia.size();
    if (r.gpus.size() >= on_bus) return out;
    out.push_back(
        Finding{"gpu.not_visible", Severity::fail, std::nullopt,
                fmt::format("{} NVIDIA GPU(s) bound to the driver on the PCI bus, {} listed by NVML/CUDA",
                            on_bus, r.gpus.size()),
                "check nvidia-smi and the kernel log (Xid 79: fallen off the bus); drain the node",
                static_cast<double>(on_bus - r.gpus.size())});
    return out;
  }
  for (const PciGpu* p : unseen_on_nvidia) {
    out.push_back(Finding{"gpu.not_visible", Severity::fail, std::nullopt,
                          who(*p) + " is bound to the nvidia driver but neither NVML nor CUDA lists it",
                          "check nvidia-smi and the kernel log (Xid 79: fallen off the bus); drain the node",
                          std::nullopt});
  }
  return out;
}

}  // namespace gpuqual
