#pragma once
// The MIG layout a node is meant to have against the one it has (docs/mig.md, "The layout
// check"). Three things say what is meant:
//  - the `nvidia.com/mig.config` label names a config of the MIG manager's config file, read in
//    its own format (NVIDIA/mig-parted: `version: v1`, `mig-configs: NAME: [{devices: all | [0,
//    1], mig-enabled: bool, mig-devices: {"1g.10gb": 7}, device-filter: ...}]`), or the
//    ConfigMap that carries it (`data: {config.yaml: |...}`);
//  - the `nvidia.com/mig.config.state` label: success, failed, pending or rebooting;
//  - what the device plugin advertises in the Node's capacity: `nvidia.com/mig-<profile>` per
//    profile in the mixed strategy, `nvidia.com/gpu` counting MIG devices in the single one
//    (`nvidia.com/mig.strategy`; NVIDIA k8s-device-plugin, "MIG support").
// Every disagreement with the instances in the record is a `fail` finding that names the GPU and
// the profile; a state of `success` over a layout that differs is one more, the case the MIG
// manager's own report hides (NVIDIA/mig-parted #18, gpu-operator #668).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/record/record.hpp"

namespace gpuqual {

inline constexpr const char* kMigConfigLabel = "nvidia.com/mig.config";
inline constexpr const char* kMigConfigStateLabel = "nvidia.com/mig.config.state";
inline constexpr const char* kMigStrategyLabel = "nvidia.com/mig.strategy";

// One entry of a named MIG config: the GPUs it selects and what they are to have.
struct MigConfigEntry {
  bool all_devices = false;
  std::vector<int> devices;                // NVML indices (PCI order) when not all
  std::vector<std::string> device_filter;  // PCI ids "0x233010DE" (device, then vendor); empty: any
  bool mig_enabled = false;
  std::map<std::string, int> mig_devices;  // profile → count
};

struct MigManagerConfig {
  std::map<std::string, std::vector<MigConfigEntry>> configs;  // mig-configs, by name
};

// Reads the MIG manager's config file, or a ConfigMap whose `data` holds it (the first data key
// that parses as one). A file that is neither throws InputError naming the file and the line.
MigManagerConfig parse_mig_manager_config(const std::string& text, const std::string& origin);

struct MigLayoutInputs {
  std::vector<GpuInfo> gpus;
  std::map<std::string, std::string> labels;                    // the Node's labels
  std::optional<MigManagerConfig> config;                       // nullopt: no config file given
  std::string config_origin;                                    // its path, for the findings
  std::optional<std::map<std::string, std::int64_t>> capacity;  // nvidia.com/* of status.capacity
  std::vector<PciGpu> pci_gpus;                                 // device ids for device-filter
};

struct MigLayoutResult {
  std::vector<Finding> findings;  // fail: a disagreement; info: what could not be compared
  int compared = 0;               // how many of config, state and resources were compared
};

MigLayoutResult judge_mig_layout(const MigLayoutInputs& in);

// The GPU's MIG devices per profile as the config entry selecting it asks; nullopt when no entry
// of the config selects it.
std::optional<MigConfigEntry> mig_entry_for(const std::vector<MigConfigEntry>& entries, int nvml_index,
                                            const std::string& pci_device_id);

// The nvidia.com/* resources of a Kubernetes Node object's status.capacity (`kubectl get node
// -o json`); quantities of extended resources are integers. InputError for a file that is not a
// Node or a quantity that is not an integer.
std::map<std::string, std::int64_t> nvidia_capacity_from_node(const nlohmann::json& node,
                                                              const std::string& file);

}  // namespace gpuqual
