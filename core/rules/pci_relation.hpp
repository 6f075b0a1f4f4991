#pragma once
// How two PCI functions (a GPU and an HCA) are connected, from their sysfs device paths
// (/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0 → {pci0000:17, 0000:17:01.0,
// 0000:18:00.0, 0000:19:00.0}). GPUDirect RDMA traffic between them goes through the deepest
// common ancestor, which decides what it costs (NVIDIA, "Developing a Linux Kernel Module using
// GPUDirect RDMA", 1. Overview: the two devices must share the same upstream PCI Express root
// complex, and peer traffic that stays below a PCIe switch performs best):
//   pcie_switch   a common ancestor below the root complex (a root port has one link, so two
//                 functions under it sit behind a switch or bridge): traffic stays in the switch
//   host_bridge   only the root complex (pciDDDD:BB) in common: through the CPU's host bridge
//   numa_node     different root complexes of one NUMA node
//   cross_numa    different NUMA nodes: across the CPU interconnect
//   unknown       a path or a NUMA node could not be read
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

std::string_view pci_relation(const std::vector<std::string>& a, std::optional<int> a_numa,
                              const std::vector<std::string>& b, std::optional<int> b_numa);

}  // namespace gpuqual
