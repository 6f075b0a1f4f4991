#pragma once
// The Kubernetes node this run is on, as the pod was told through the downward API:
// the node name in an environment variable (fieldRef spec.nodeName), the node's labels in a
// mounted file. (The downward API exposes the pod's labels as a file; node labels such as GPU
// Feature Discovery's nvidia.com/gpu.* reach the pod through an init step or an operator that
// writes them in the same format, see docs/inventory.md.)
#include <map>
#include <string>
#include <string_view>

namespace gpuqual {

// Environment variables read for the node name, first non-empty wins.
inline constexpr const char* kNodeNameEnvVars[] = {"GPUQUAL_NODE_NAME", "NODE_NAME", "KUBERNETES_NODE_NAME"};
// Environment variable naming the labels file when --labels-file is not given.
inline constexpr const char* kLabelsFileEnvVar = "GPUQUAL_LABELS_FILE";

std::string k8s_node_name_from_env();

// Parses the downward API format, one `key="value"` per line (value quoted Go-style, with
// \" \\ \n \t \r \xHH escapes), and also plain `key=value`. Blank lines and `#` comments are
// skipped. A malformed line throws InputError(origin, "line N", problem).
std::map<std::string, std::string> parse_k8s_labels(std::string_view text, const std::string& origin);

// Reads and parses `path` (InputError when unreadable, empty, binary or malformed).
std::map<std::string, std::string> read_k8s_labels_file(const std::string& path);

}  // namespace gpuqual
