#include "device/node/inventory.hpp"

#include <cstdlib>

#include "core/base/input_error.hpp"
#include "core/record/hardware_class.hpp"
#include "device/cuda/cuda_gpus.hpp"
#include "device/host/container_runtimes.hpp"
#include "device/host/host_facts.hpp"
#include "device/host/k8s_node.hpp"
#include "device/host/k8s_node_info.hpp"
#include "device/host/pci_gpus.hpp"
#include "device/host/stack_tree_reader.hpp"
#include "device/node/library_versions.hpp"
#include "device/node/stack_collect.hpp"
#include "device/nvml/nvml_inventory.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

namespace {

// The first of the variables that hand a process a subset of the node's GPUs, as NAME=value.
std::string visible_devices_from_env() {
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"}) {
    if (const char* v = std::getenv(name)) return std::string(name) + "=" + v;
  }
  return {};
}

// GPUs as CUDA enumerates them, completed with NVML's facts. When CUDA cannot enumerate but
// NVML can (a driver older than the runtime gpuqual carries), the GPUs NVML sees are still
// listed, so the record shows what hardware is there and the compat check can say why CUDA
// failed; the reason stays set because no CUDA check can run on them. Either way a device NVML
// lists but cannot open or identify is listed in node.nvml_devices_unread (nvml_inventory.hpp).
void collect_gpus(const NvmlSession& nvml, Inventory& inv) {
  CudaGpuScan cuda = scan_cuda_gpus();
  if (!cuda.gpus.empty()) {
    inv.gpus = std::move(cuda.gpus);
    add_nvml_facts(nvml, inv.gpus, inv.node);
    // A partial enumeration (one device's properties failed) is still worth saying.
    inv.gpu_unavailable_reason = cuda.error;
    return;
  }

  std::string reason = "CUDA runtime: " + cuda.error;
  std::string count_error;
  inv.gpus = gpus_from_nvml(nvml, inv.node, &count_error);
  if (!nvml.ok()) {
    reason += "; NVML: " + nvml.reason();
  } else if (!inv.gpus.empty()) {
    reason += "; NVML sees " + std::to_string(inv.gpus.size()) +
              " GPU(s) that CUDA cannot use (driver older than the CUDA runtime? see `compat`)";
  } else {
    reason += "; NVML sees no GPU";
  }
  if (!count_error.empty()) reason += "; " + count_error;
  for (const auto& p : inv.node.nvml_devices_unread) reason += "; " + p;
  inv.gpu_unavailable_reason = reason;
}

}  // namespace

Inventory collect_inventory(const InventoryOptions& options) {
  if (!options.class_override.empty() && !is_valid_class_slug(options.class_override)) {
    throw InputError(
        "--class", "",
        "'" + options.class_override + "' is not a class slug (1-63 of [a-z0-9-], e.g. h200-sxm-141gb)");
  }
  Inventory inv;
  NodeFacts& n = inv.node;
  n.hostname = read_hostname();
  n.kernel = read_kernel();
  n.arch = read_arch();
  n.os = read_os_name();
  n.cpu_model = read_cpu_model();
  n.numa_nodes = count_numa_nodes();

  NvmlSession nvml = NvmlSession::open();
  StackVersions v = read_stack_versions(nvml);
  n.driver_version = v.driver_version;
  n.cuda_driver_version = v.cuda_driver_version;
  n.cuda_runtime_version = v.cuda_runtime_version;
  n.cublas_version = v.cublas_version;
  n.nccl_version = v.nccl_version;
  n.kernel_module_version = v.kernel_module_version;
  n.nvml_driver_version = v.nvml_driver_version;
  n.nvml_cuda_driver_version = v.nvml_cuda_driver_version;
  n.libcuda_version = v.libcuda_version;
  n.boot_id = read_boot_id();
  n.uptime_s = read_uptime_s();
  n.pci_gpus = read_pci_gpus();
  n.visible_devices = visible_devices_from_env();
  n.container_runtimes = detect_container_runtimes();

  n.k8s_node_name = k8s_node_name_from_env();
  std::string labels_file = options.k8s_labels_file;
  if (labels_file.empty()) {
    if (const char* env = std::getenv(kLabelsFileEnvVar)) labels_file = env;
  }
  if (!labels_file.empty()) n.k8s_labels = read_k8s_labels_file(labels_file);

  collect_gpus(nvml, inv);

  StackSources sources;
  sources.node_file = options.k8s_node_file;
  if (sources.node_file.empty()) {
    if (const char* env = std::getenv(kNodeFileEnvVar)) sources.node_file = env;
  }
  sources.platform = options.platform;
  sources.root = host_root_from_env();  // "" (the real /) unless the host's root is mounted elsewhere
  n.stack = collect_stack_inventory(nvml, inv.gpus, sources);

  // A record names every GPU (docs/hardware-class.md, "Identity"): one whose UUID neither CUDA
  // nor NVML gave is named by its slot, so that the record is not refused.
  for (GpuInfo& g : inv.gpus) {
    if (g.uuid.empty()) g.uuid = unread_gpu_uuid(g);
  }
  inv.hardware_class = derive_hardware_class(inv.gpus);
  if (!options.class_override.empty()) {
    inv.hardware_class.slug = options.class_override;
    inv.hardware_class.overridden = true;
  }
  return inv;
}

}  // namespace gpuqual
