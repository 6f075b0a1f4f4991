#include "core/rules/stack_fabric_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/dotted_version.hpp"

namespace gpuqual {

namespace {

bool same_version(const std::string& a, const std::string& b) {
  auto va = parse_driver_version(a), vb = parse_driver_version(b);
  return va && vb ? *va == *vb : a == b;
}

// The host runs the IMEX daemon itself: its unit is installed, enabled and not masked.
bool host_imex_daemon(const HostStack& h) { return h.imex_unit && h.imex_enabled && !h.imex_masked; }

void nvlsm_rules(const HostStack& h, const AddStackFinding& add) {
  if (!h.pci_read || !h.packages_read || !hgx_blackwell(h) || !h.nvlsm_packages.empty()) return;
  add("stack.nvlsm_missing",
      fmt::format(
          "{} HGX B200/B300 GPU(s) on the PCI bus but no nvlsm package: Fabric Manager needs the NVLink "
          "Subnet Manager to bring up the NVSwitch fabric of these baseboards",
          h.pci_gpu_device_ids.size()));
}

void imex_rules(const HostStack& h, const AddStackFinding& add) {
  if (h.packages_read && h.loaded_driver) {
    for (const auto& p : h.imex_packages) {
      if (same_version(p.version, *h.loaded_driver)) continue;
      add("stack.imex_version_mismatch",
          fmt::format(
              "{} {} with driver {} loaded: the IMEX daemon checks the loaded driver's version at start "
              "and exits on another",
              p.name, p.version, *h.loaded_driver));
    }
  }
  if (host_imex_daemon(h) && h.imex_channels.value_or(std::vector<std::string>{}).empty()) {
    add("stack.imex_channels_missing",
        h.imex_channels
            ? "nvidia-imex.service is enabled but /dev/nvidia-caps-imex-channels has no channel: no "
              "workload can import another node's GPU memory"
            : "nvidia-imex.service is enabled but /dev/nvidia-caps-imex-channels does not exist: no "
              "workload can import another node's GPU memory");
  }
  if (host_imex_daemon(h) && h.dra_compute_domains) {
    add("stack.imex_dra_conflict",
        "nvidia-imex.service is enabled on a node where NVIDIA's DRA driver runs ComputeDomains "
        "(/var/lib/kubelet/plugins/compute-domain.nvidia.com): the host's IMEX daemon and the "
        "ComputeDomain's "
        "own IMEX daemons claim the same channels and NVLink partition");
  }
}

}  // namespace

bool hgx_blackwell(const HostStack& h) {
  return std::any_of(h.pci_gpu_device_ids.begin(), h.pci_gpu_device_ids.end(),
                     [](unsigned id) { return id == 0x2901 || id == 0x2909 || id == 0x3182; });
}

void nvlink_fabric_rules(const HostStack& h, const AddStackFinding& add) {
  nvlsm_rules(h, add);
  imex_rules(h, add);
}

}  // namespace gpuqual
