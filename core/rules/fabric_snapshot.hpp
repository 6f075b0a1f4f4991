#pragma once
// What the `fabric` check reads about the node's InfiniBand / RoCE adapters (HCAs), as plain
// data: one snapshot is taken at the start of a window and one at its end, and the rules
// (core/rules/fabric_rules.hpp) judge the pair. device/host/fabric_sysfs.hpp fills it from sysfs; the JSON
// form is the run-start snapshot the runner leaves in the side directory (fabric-before.json),
// so that counter growth covers the run up to the check, like nvml-before.json for `health`.
//
// Field meanings follow the kernel's stable ABI, Documentation/ABI/stable/sysfs-class-infiniband,
// and the formats of drivers/infiniband/core/sysfs.c (state_show "4: ACTIVE", phys_state_show
// "5: LinkUp", rate_show "400 Gb/sec (4X NDR)", link_layer_show "InfiniBand" | "Ethernet").
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpuqual {

inline constexpr const char* kFabricBeforeFile = "fabric-before.json";

struct FabricPort {
  int number = 0;                                 // ports/<n>
  std::string state;                              // "ACTIVE" (the name after "4: "); "" when unreadable
  std::string phys_state;                         // "LinkUp"
  std::optional<double> rate_gbps;                // 400 (from "400 Gb/sec (4X NDR)")
  std::string width;                              // "4X"
  std::string speed;                              // "NDR" ("" when the kernel printed none)
  std::string link_layer;                         // "InfiniBand" | "Ethernet"
  std::map<std::string, std::uint64_t> counters;  // the error counters that could be read
};

struct FabricHca {
  std::string name;                   // mlx5_0
  std::string fw_ver;                 // 28.39.1002
  std::string hca_type;               // MT4129 (mlx4/mlx5 drivers), "" when the driver has none
  std::string board_id;               // MT_0000000838
  std::string node_guid;              // 946d:ae03:00a1:b2c4
  std::string pci_address;            // 0000:1a:00.0, the PCI function behind it ("" when virtual)
  std::vector<std::string> pci_path;  // pci0000:17, 0000:17:01.0, ... ending with pci_address
  std::optional<int> numa_node;       // from the PCI device; nullopt when unknown (-1)
  std::vector<FabricPort> ports;
};

struct FabricSnapshot {
  std::string root = "/";  // the directory sysfs was read under
  std::vector<FabricHca> hcas;
};

// The facts GPUDirect RDMA needs from the host (device/host/fabric_sysfs.hpp reads them).
struct GpuDirectFacts {
  bool peermem_loaded = false;      // /sys/module/nvidia_peermem exists
  bool open_kernel_module = false;  // /proc/driver/nvidia/version names the Open Kernel Module
  bool nvidia_module_read = false;  // /proc/driver/nvidia/version could be read at all
  std::string kernel_release;       // /proc/sys/kernel/osrelease, "6.8.0-45-generic"
};

nlohmann::json to_json(const FabricSnapshot& s);
// Throws InputError(origin, json path, problem) on a malformed snapshot.
FabricSnapshot fabric_snapshot_from_json(const nlohmann::json& j, const std::string& origin);

}  // namespace gpuqual
