#include "device/host/k8s_node_info.hpp"

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"

namespace gpuqual {

namespace {

using nlohmann::json;

// A string field of the Node object (Kubernetes API reference, NodeSystemInfo and NodeStatus).
StackFact field(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    return StackFact::unread("the Node object has no " + where + "." + key);
  if (!it->is_string()) return StackFact::unread(where + "." + key + " is not a string");
  return StackFact::read(it->get<std::string>());
}

// A resource quantity; a node whose device plugin never registered advertises none ("").
StackFact gpu_quantity(const json& status, const char* list) {
  auto it = status.find(list);
  if (it == status.end() || !it->is_object())
    return StackFact::unread(std::string("the Node object has no status.") + list);
  auto q = it->find("nvidia.com/gpu");
  if (q == it->end()) return StackFact::read("");
  return q->is_string()
             ? StackFact::read(q->get<std::string>())
             : StackFact::unread(std::string("status.") + list + "[nvidia.com/gpu] is not a string");
}

}  // namespace

void read_k8s_node_info(StackInventory& s, const std::string& node_file) {
  if (node_file.empty()) {
    const StackFact none =
        StackFact::unread(std::string("no Node object given (--node-file or $") + kNodeFileEnvVar + ")");
    for (StackFact* f : {&s.k8s_kubelet_version, &s.k8s_container_runtime, &s.k8s_kernel_version,
                         &s.k8s_os_image, &s.k8s_gpu_capacity, &s.k8s_gpu_allocatable}) {
      *f = none;
    }
    return;
  }
  const json node = read_json_file(node_file);
  if (!node.is_object() || node.value("kind", "Node") != "Node") {
    throw InputError(node_file, "$.kind", "not a Kubernetes Node object");
  }
  auto status = node.find("status");
  if (status == node.end() || !status->is_object())
    throw InputError(node_file, "$.status", "a Node object needs a status");
  auto info = status->find("nodeInfo");
  const json empty = json::object();
  const json& ni = info != status->end() && info->is_object() ? *info : empty;
  s.k8s_kubelet_version = field(ni, "kubeletVersion", "status.nodeInfo");
  s.k8s_container_runtime = field(ni, "containerRuntimeVersion", "status.nodeInfo");
  s.k8s_kernel_version = field(ni, "kernelVersion", "status.nodeInfo");
  s.k8s_os_image = field(ni, "osImage", "status.nodeInfo");
  s.k8s_gpu_capacity = gpu_quantity(*status, "capacity");
  s.k8s_gpu_allocatable = gpu_quantity(*status, "allocatable");
}

}  // namespace gpuqual
