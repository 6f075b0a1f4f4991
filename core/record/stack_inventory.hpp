#pragma once
// The whole stack of a node beyond the versions NodeFacts has always held: platform firmware
// (DMI), NIC/HCA firmware and drivers, GPU firmware beyond the VBIOS (InfoROM, GSP), driver
// add-ons (kernel module build, Fabric Manager, nvidia-peermem), the container stack (NVIDIA
// Container Toolkit, CDI specs), the Kubernetes Node's own report (status.nodeInfo, GPU
// capacity) and platform components the Job names (`--platform gpu-operator=v25.10.0`).
//
// Every fact is read without privileges. One that could not be read is null WITH the reason
// (StackFact::unread), never an empty string: "not read" and "read, nothing there" differ.
//
// `stack_components` is the ONE list of a record's stack as (name, value) pairs: `diff` reports
// changes of it, the Prometheus output carries it as labels, `matrix` groups records by it.
// A new stack fact is added to StackInventory, its JSON (stack_inventory_json.cpp writes it,
// record_reader.cpp reads it, schemas/run-record.v1.schema.json) and stack_components.cpp.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuqual {

struct RunRecord;

// One stack fact: the value as read, or nullopt with why it could not be read.
struct StackFact {
  std::optional<std::string> value;
  std::string reason;  // non-empty exactly when value is nullopt

  static StackFact read(std::string v) { return StackFact{std::move(v), {}}; }
  static StackFact unread(std::string why) { return StackFact{std::nullopt, std::move(why)}; }
  bool known() const { return value.has_value(); }
  friend bool operator==(const StackFact&, const StackFact&) = default;
};

// One network device or HCA with a PCI function behind it (virtual interfaces are not listed).
struct NicStack {
  std::string name;         // "mlx5_0" (class infiniband) or "ens1f0np0" (class net)
  std::string sysfs_class;  // "infiniband" or "net"
  std::string pci_address;  // "0000:3b:00.0"; "" when the device is not on PCI
  StackFact driver;         // bound kernel module: "mlx5_core", "ice"
  StackFact firmware;       // fw_ver ("28.39.1002"); null when sysfs has none for the device
  friend bool operator==(const NicStack&, const NicStack&) = default;
};

inline bool is_nic_class(const std::string& c) { return c == "infiniband" || c == "net"; }

// Firmware of one GPU beyond its VBIOS (which GpuInfo::vbios holds), read through NVML.
struct GpuFirmware {
  int gpu = 0;  // index in RunRecord::gpus
  std::string uuid;
  StackFact inforom_image;  // nvmlDeviceGetInforomImageVersion: "G520.0200.00.05"
  StackFact inforom_oem;    // nvmlDeviceGetInforomVersion(NVML_INFOROM_OEM)
  StackFact inforom_ecc;    // ... (NVML_INFOROM_ECC)
  StackFact inforom_power;  // ... (NVML_INFOROM_POWER)
  StackFact gsp_firmware;   // nvmlDeviceGetGspFirmwareVersion: "570.133.20"
  friend bool operator==(const GpuFirmware&, const GpuFirmware&) = default;
};

// What the `stack` check judged of the host's files (core/rules/stack_rules.hpp): the status,
// the warn and fail codes, whether the packaged driver is not the loaded one ("upgraded, not
// rebooted"), and the CDI specs and the runtime configuration as one line each (diff shows them).
struct StackCheckSummary {
  std::string status;                 // pass, warn, fail, skip, error
  std::vector<std::string> findings;  // codes of the warn and fail findings, in rule order
  bool reboot_pending = false;
  std::string cdi;      // "/etc/cdi/nvidia.yaml nvidia.com/gpu driver 570.133.20 3 devices", "none"
  std::string runtime;  // "containerd nvidia=/usr/bin/nvidia-container-runtime cdi systemd; mode cdi"
  friend bool operator==(const StackCheckSummary&, const StackCheckSummary&) = default;
};

struct StackInventory {
  // Platform firmware: /sys/class/dmi/id/{bios_vendor,bios_version,bios_date,board_vendor,board_name}.
  StackFact bios_vendor, bios_version, bios_date, board_vendor, board_name;
  // NICs and HCAs, sorted by class then name; nullopt with nics_reason when sysfs could not be listed.
  std::optional<std::vector<NicStack>> nics;
  std::string nics_reason;
  std::vector<GpuFirmware> gpu_firmware;  // one per GPU NVML could open, by GPU index

  // Driver stack. NodeFacts holds the module, NVML and CUDA driver versions; this is the build.
  StackFact kernel_module_build;  // the "NVRM version: ..." line of /proc/driver/nvidia/version
  StackFact fabric_manager;       // nv-fabricmanager version, "absent", or null when not decidable
  StackFact nvidia_peermem;       // "loaded" (+ " <version>"), "not loaded"

  // Container stack. NodeFacts::container_runtimes holds the engines and runtimes.
  StackFact container_toolkit;  // NVIDIA Container Toolkit version (nvidia-ctk / nvidia-container-cli)
  StackFact cdi_specs;          // "nvidia.com/gpu=/etc/cdi/nvidia.yaml,..." sorted; "" when none

  // Kubernetes: what the Node object reports (status.nodeInfo, capacity, allocatable).
  StackFact k8s_kubelet_version, k8s_container_runtime, k8s_kernel_version, k8s_os_image;
  StackFact k8s_gpu_capacity, k8s_gpu_allocatable;  // nvidia.com/gpu

  // Platform components the run was told about: --platform NAME=VERSION (gpu-operator=v25.10.0).
  std::map<std::string, std::string> platform;

  // The `stack` check's summary; nullopt in records written before it (the key is absent).
  std::optional<StackCheckSummary> stack_check;

  friend bool operator==(const StackInventory&, const StackInventory&) = default;
};

// The facts of each stack object in write order: the writer and the reader walk these lists,
// so a fact added here is written, read and validated everywhere at once.
template <class Stack, class Fn>
void for_each_stack_fact(Stack& s, Fn&& fn) {
  fn("bios_vendor", s.bios_vendor);
  fn("bios_version", s.bios_version);
  fn("bios_date", s.bios_date);
  fn("board_vendor", s.board_vendor);
  fn("board_name", s.board_name);
  fn("kernel_module_build", s.kernel_module_build);
  fn("fabric_manager", s.fabric_manager);
  fn("nvidia_peermem", s.nvidia_peermem);
  fn("container_toolkit", s.container_toolkit);
  fn("cdi_specs", s.cdi_specs);
  fn("k8s_kubelet_version", s.k8s_kubelet_version);
  fn("k8s_container_runtime", s.k8s_container_runtime);
  fn("k8s_kernel_version", s.k8s_kernel_version);
  fn("k8s_os_image", s.k8s_os_image);
  fn("k8s_gpu_capacity", s.k8s_gpu_capacity);
  fn("k8s_gpu_allocatable", s.k8s_gpu_allocatable);
}

template <class Nic, class Fn>
void for_each_nic_fact(Nic& n, Fn&& fn) {
  fn("driver", n.driver);
  fn("firmware", n.firmware);
}

template <class Gpu, class Fn>
void for_each_gpu_firmware_fact(Gpu& g, Fn&& fn) {
  fn("inforom_image", g.inforom_image);
  fn("inforom_oem", g.inforom_oem);
  fn("inforom_ecc", g.inforom_ecc);
  fn("inforom_power", g.inforom_power);
  fn("gsp_firmware", g.gsp_firmware);
}

// One component of the stack: a stable dotted name and its fact.
struct StackComponent {
  std::string name;  // "bios.version", "nic.mlx5_0.firmware", "gpu.0.inforom_image", "platform.gpu-operator"
  StackFact fact;
};

// Every stack component of a record, in a fixed order (driver stack, platform firmware, NICs,
// per GPU firmware, container stack, Kubernetes, platform, probe images): the node facts that
// have always been in the record (driver, CUDA, kernel, OS, runtimes, VBIOS) and, when the record
// has one, its StackInventory. An empty legacy string field reads as null "not recorded".
std::vector<StackComponent> stack_components(const RunRecord& record);

// The attribute suffixes under which a container probe records, per probe ("<probe>.image"), the
// image it ran (CheckResult::attributes): the reference as configured, and the runtime's id and
// registry digest of what actually ran. stack_components lists them as "image.<check>.<probe>".
inline constexpr const char* kProbeImageAttr = ".image";
inline constexpr const char* kProbeImageIdAttr = ".image_id";
inline constexpr const char* kProbeImageDigestAttr = ".image_digest";

}  // namespace gpuqual
