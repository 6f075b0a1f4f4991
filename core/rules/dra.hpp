#pragma once
// Dynamic Resource Allocation (docs/kubernetes.md, "DRA"): what NVIDIA's DRA driver publishes
// for a node, parsed from the API's own JSON (`kubectl get resourceslices,deviceclasses,
// computedomains -o json`), and judged against the GPUs the run found. Pure functions: the
// files are read in suites/dra.cpp.
//
// Shapes (tests/data/dra/README.md cites each):
// - ResourceSlice resource.k8s.io/v1: spec.driver, spec.nodeName, spec.pool {name, generation},
//   spec.devices[] {name, attributes {NAME: {string|version|int|bool}}}. A consumer uses only the
//   slices of a pool's highest generation (Kubernetes API reference, ResourceSlice v1).
// - The driver gpu.nvidia.com publishes a device per GPU (attribute type "gpu") and per MIG device
//   (type "mig", with parentUUID and profile), each with uuid, productName and driverVersion
//   (https://github.com/NVIDIA/k8s-dra-driver-gpu/blob/main/cmd/gpu-kubelet-plugin/deviceinfo.go
//   and https://github.com/NVIDIA/k8s-dra-driver-gpu/blob/main/cmd/gpu-kubelet-plugin/mig.go).
// - DeviceClasses gpu.nvidia.com and mig.nvidia.com come with the driver's Helm chart.
// - ComputeDomain resource.nvidia.com: status.status and status.nodes[] {name, status}, each
//   Ready or NotReady (the CRD in the driver's Helm chart; its URL is in tests/data/dra/README.md).
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

inline constexpr const char* kDraGpuDriver = "gpu.nvidia.com";
inline constexpr const char* kDraGpuDeviceClass = "gpu.nvidia.com";
inline constexpr const char* kDraMigDeviceClass = "mig.nvidia.com";
inline constexpr const char* kDraApiGroup = "resource.k8s.io";

struct DraDevice {
  std::string name;            // "gpu-0", "gpu-1-mig-1g10gb-19-0"
  std::string type;            // "gpu", "mig", "vfio" ...
  std::string uuid;            // "GPU-..." or "MIG-..."
  std::string parent_uuid;     // a MIG device's GPU
  std::string product;         // productName
  std::string driver_version;  // driverVersion, a semantic version ("570.133.20")
};

struct DraSlice {
  std::string name;
  std::string driver;
  std::string node;  // spec.nodeName ("" for a slice not local to one node)
  std::string pool;
  long long generation = 0;
  std::vector<DraDevice> devices;
};

struct DraComputeDomain {
  std::string name;  // namespace/name
  std::string status;
  std::vector<std::pair<std::string, std::string>> nodes;  // (node name, Ready|NotReady)
};

struct DraObjects {
  std::vector<DraSlice> slices;
  std::vector<std::string> device_classes;
  std::vector<DraComputeDomain> compute_domains;
};

// A List (`kubectl get a,b -o json`) or one object; kinds other than the three are ignored.
// Malformed JSON of a known kind throws InputError(origin, json path, problem).
DraObjects parse_dra_objects(const nlohmann::json& j, const std::string& origin);

// Whether an APIGroupList (`kubectl get --raw /apis`) serves resource.k8s.io.
bool api_groups_serve_dra(const nlohmann::json& j, const std::string& origin);

// The devices `driver` publishes for `node`: only the highest generation of each pool.
std::vector<const DraSlice*> node_slices(const DraObjects& objects, const std::string& node,
                                         const std::string& driver = kDraGpuDriver);

// Whether the cluster has NVIDIA's DRA driver at all: its DeviceClass or any slice of it.
bool dra_driver_installed(const DraObjects& objects);

// Which path the node's GPUs reach pods by: "dra" (slices of gpu.nvidia.com with devices),
// "device_plugin" (nvidia.com/gpu capacity above 0), "both", or "none".
std::string gpu_allocation_path(bool node_has_dra_devices, std::optional<long long> gpu_capacity);

// Two driver versions equal component by component ("570.133.20" == "570.133.20.0";
// "535.104.05" == "535.104.5", as the driver's semver parsing drops the leading zero).
bool driver_versions_equal(const std::string& a, const std::string& b);

// The findings of the node's slices against the GPUs of the record (`gpus`, with their MIG
// devices) and the loaded driver: dra.slice_missing, dra.slice_empty, dra.gpu_unpublished,
// dra.mig_unpublished, dra.device_unknown, dra.product_mismatch, dra.driver_version_mismatch,
// dra.device_class_missing, dra.compute_domain_not_ready. Empty: the slices match.
std::vector<Finding> judge_dra(const DraObjects& objects, const std::string& node,
                               const std::vector<GpuInfo>& gpus, const std::string& driver_version);

}  // namespace gpuqual
