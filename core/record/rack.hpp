#pragma once
// Racks (`gpuqual plan`, `gate`, `matrix`): the nodes of one multi-node NVLink domain (a
// GB200/GB300 NVL72 rack) are one unit of a rollout and of a verdict. GPU Feature Discovery labels each node
// of such a system with `nvidia.com/gpu.clique` = `<clusterUUID>.<cliqueId>` (the NVLink fabric's cluster
// UUID and the clique, the NVLink partition, within it; label table:
// https://github.com/NVIDIA/k8s-device-plugin/blob/main/docs/gpu-feature-discovery/README.md).
// The rack is the cluster UUID: the partitions of one NVL72 share its NVLink switch trays, so a
// driver rollout that left one partition on another driver than the next would still mix
// versions within the rack. A policy may name another label (`rack_label:`), whose whole value
// then names the rack.
#include <map>
#include <string>

namespace gpuqual {

inline constexpr const char* kCliqueLabel = "nvidia.com/gpu.clique";

// The rack of a node with these labels under `rack_label` ("" when the node is in none): for the
// clique label the text before its last '.', the cluster UUID (the whole value when it has no
// '.', or when what is left would be empty); for any other label its whole value.
std::string rack_of(const std::map<std::string, std::string>& labels, const std::string& rack_label);

// The rack label a `--rack-label` flag names: "none" turns racks off ("").
inline std::string rack_label_from_flag(const std::string& flag) { return flag == "none" ? "" : flag; }

}  // namespace gpuqual
