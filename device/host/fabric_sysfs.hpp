#pragma once
// The node's InfiniBand / RoCE adapters as sysfs shows them to any user (no root, no verbs, no
// MAD access): /sys/class/infiniband/<hca>/{fw_ver,hca_type,board_id,node_guid,device} and
// ports/<n>/{state,phys_state,rate,link_layer,counters/*} (kernel ABI,
// Documentation/ABI/stable/sysfs-class-infiniband). Every reader takes the root directory the
// tree lives under ("/" on a node, a recorded tree in tests), like device/host/pci_gpus.hpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/fabric_snapshot.hpp"

namespace gpuqual {

// nullopt when <root>/sys/class cannot be listed (no sysfs here: "not read", which is not "no
// HCA"); an empty snapshot when there is no <root>/sys/class/infiniband (ib_core not loaded:
// no RDMA device) or it is empty. Only the counters named in `counters` are read.
std::optional<FabricSnapshot> read_fabric_snapshot(const std::string& root,
                                                   const std::vector<std::string>& counters);

GpuDirectFacts read_gpudirect_facts(const std::string& root);

// Where a PCI function sits: its sysfs device path below /sys/devices, and its NUMA node.
struct PciLocation {
  std::vector<std::string> path;  // pci0000:17, 0000:17:01.0, ..., the function's own address
  std::optional<int> numa_node;
};
// `bus_id` in either spelling ("0000:19:00.0" or NVML's "00000000:19:00.0"); nullopt when
// <root>/sys/bus/pci/devices/<bus id> does not resolve.
std::optional<PciLocation> read_pci_location(const std::string& root, const std::string& bus_id);

// Parsers of single attribute values, exposed for tests.
std::string parse_ib_state(std::string_view text);  // "4: ACTIVE" → "ACTIVE"
struct IbRate {
  double gbps = 0;
  std::string width;  // "4X"
  std::string speed;  // "NDR"
};
std::optional<IbRate> parse_ib_rate(std::string_view text);  // "400 Gb/sec (4X NDR)"
// "00000000:19:00.0" → "0000:19:00.0" (sysfs spelling, lower case).
std::string sysfs_bus_id(std::string_view bus_id);

}  // namespace gpuqual
