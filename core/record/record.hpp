#pragma once
// The run record (`gpuqual.run/v1`): the single source of truth of a run. Everything after
// `gpuqual run` (compare, diff, gate, baseline build, report) reads only this.
// The JSON shape is fixed by schemas/run-record.v1.schema.json; record_json.cpp maps it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/record/mig_inventory.hpp"
#include "core/record/stack_inventory.hpp"
#include "core/record/status.hpp"

namespace gpuqual {

inline constexpr const char* kRunSchema = "gpuqual.run/v1";

enum class Direction { higher, lower };  // which way is better
std::string_view to_string(Direction d);
std::optional<Direction> parse_direction(std::string_view text);

enum class Severity { info, warn, fail };
std::string_view to_string(Severity s);
std::optional<Severity> parse_severity(std::string_view text);

// One measured quantity of one GPU (gpu set) or of the node (gpu empty), with its samples.
struct Metric {
  std::string name;  // dotted: gemm.bf16.tflops, hbm.triad.gbps, ...
  std::string unit;  // one of known_units() (units.hpp)
  Direction direction = Direction::higher;
  std::optional<int> gpu;  // GPU index in RunRecord::gpus; empty = node scope
  double median = 0;
  std::vector<double> samples;  // raw samples, in `unit`
  double cv = 0;                // coefficient of variation of samples (stddev / mean)
  double min = 0;
  double max = 0;
  int throttled_samples = 0;  // samples taken while the GPU reported a clock throttle
  // The MIG device measured ("MIG-<uuid>", one of gpus[gpu].mig's compute instances) when the
  // check ran once per MIG device (docs/mig.md, "Measuring each slice"); "" for a whole GPU or
  // the node. Judged against the slice's class, `<parent>-mig-<profile>`.
  std::string mig_device{};
  // n is samples.size(); it is written to JSON for readers but never stored twice here.
  std::size_t n() const { return samples.size(); }
};

// A discrete fact found by a check: an ECC count, a downgraded link, a wrong GEMM answer, an XID.
// Built in one expression: Finding{.code = ..., .severity = ..., .gpu = ..., .detail = ...}. Every
// member has a default member initializer so that the fields a finding leaves out pass GCC's
// -Wmissing-field-initializers.
struct Finding {
  std::string code{};  // ecc.uncorrected_volatile, pcie.link_downgraded, xid.79, ...
  Severity severity = Severity::info;
  std::optional<int> gpu{};       // empty = node scope
  std::string detail{};           // human sentence: what was seen
  std::string action{};           // what to do: drain, reset, RMA, check cabling (may be empty)
  std::optional<double> value{};  // a count or reading, when the finding has one
  std::string mig_device{};       // the MIG device ("MIG-<uuid>") a per-slice run found it on
};

// Status of one check on one GPU, when a check reports per GPU (JUnit: one testcase each).
struct GpuCheckStatus {
  int gpu = 0;
  Status status = Status::pass;
  std::string reason;
  std::string reason_code{};  // a skip's not-applicable code (core/record/skip_reason.hpp), else empty
  std::string mig_device{};   // a per-slice run's MIG device ("MIG-<uuid>") on GPU `gpu`, else empty
};

struct CheckResult {
  std::string name;  // registry name: gemm, hbm, health, ...
  Status status = Status::error;
  std::string reason;      // required for skip, error and fail
  std::string started_at;  // RFC 3339 UTC
  double duration_s = 0;
  std::vector<GpuCheckStatus> per_gpu;
  std::vector<Metric> metrics;
  std::vector<Finding> findings;
  // Free-form scalar facts of the check (parameters used, side-file paths, library versions).
  std::map<std::string, std::string> attributes;
  // A skip that is not applicable to the hardware says so with a code from core/record/skip_reason.hpp
  // ("single_gpu"); a skip without one could not measure and never passes.
  std::string reason_code{};
  bool optional = false;  // the suite marks the check `optional: true`: a skip does not decide
};

// A result that carries only a status and its reason: a check that could not measure (no GPU,
// bad parameters) or one the runner ended (timeout, crash).
inline CheckResult unmeasurable(std::string name, Status status, std::string reason,
                                std::string reason_code = "") {
  CheckResult r;
  r.name = std::move(name);
  r.status = status;
  r.reason = std::move(reason);
  r.reason_code = std::move(reason_code);
  return r;
}

struct GpuInfo {
  int index = 0;
  std::string name;                // NVML / CUDA product name, e.g. "NVIDIA H200"
  std::string uuid;                // GPU-xxxxxxxx-...
  std::string pci_bus_id;          // 00000000:19:00.0
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::optional<bool> ecc_enabled;
  std::optional<bool> mig_enabled;
  std::optional<bool> persistence_enabled;
  std::optional<int> pcie_max_gen;
  std::optional<int> pcie_max_width;
  std::optional<double> power_limit_w;
  std::string vbios;
  std::optional<int> nvlink_count;
  // NVML virtualization mode: "none" (bare metal), "passthrough", "vgpu" (a vGPU guest),
  // "host_vgpu", "host_vsga"; "" when not read. A vGPU or MIG GPU is not judged as a missing one.
  std::string virtualization_mode;
  // MIG mode (current and pending) and instances (core/record/mig_inventory.hpp); nullopt when
  // NVML did not answer nvmlDeviceGetMigMode (no MIG support, or a gpuqual that did not read it).
  std::optional<MigState> mig;
  // What NVML failed to give of this GPU, "<reading>: <NVML's answer>": its handle, UUID or PCI
  // bus id, for any reason, and any reading NVML answered NVML_ERROR_GPU_IS_LOST
  // ("uuid: NVML_ERROR_GPU_IS_LOST: GPU is lost"). Such a GPU is listed, never dropped, and the
  // record cannot pass (docs/inventory.md, "GPUs NVML cannot read"). Empty: NVML read it.
  std::vector<std::string> nvml_unread;
};

// One NVIDIA display/3D controller on the PCI bus, read from sysfs without the driver
// (device/host/pci_gpus.hpp): what `gpu.not_visible` compares NVML's and CUDA's GPUs against.
struct PciGpu {
  std::string bus_id;     // "0000:19:00.0" (sysfs spelling: 4-digit domain)
  std::string device_id;  // "0x2335"
  std::string pci_class;  // "0x030200"
  std::string driver;     // the bound kernel driver: "nvidia", "vfio-pci" (VM passthrough), "" none
};

struct NodeFacts {
  std::string hostname;
  // `uname -r`, the release exactly as Kubernetes' status.nodeInfo.kernelVersion shows it
  // ("6.1.0-28-amd64"); the architecture is `arch`. Records of gpuqual before it wrote both as
  // "6.1.0-28-amd64 (x86_64)": the reader splits them (core/record/kernel_release.hpp).
  std::string kernel;
  std::string arch;  // `uname -m`: "x86_64", "aarch64"; "" when not read
  // The old "<release> (<arch>)" as the record held it, when the reader split it; "" otherwise.
  // Never written: it lets a command note that it read an old record's kernel as the release.
  std::string kernel_as_written;
  std::string os;
  std::string cpu_model;
  std::optional<int> numa_nodes;
  std::string driver_version;        // "570.133.20", empty when no driver
  std::string cuda_driver_version;   // "12.8" (what the driver supports)
  std::string cuda_runtime_version;  // "13.0" (what gpuqual carries)
  std::string cublas_version;
  std::string nccl_version;
  std::vector<std::string> container_runtimes;  // "docker 28.2.2", "podman 4.3.1"
  std::string k8s_node_name;
  std::map<std::string, std::string> k8s_labels;
  // The NVIDIA GPUs on the PCI bus; nullopt when sysfs could not be read (not "none found").
  std::optional<std::vector<PciGpu>> pci_gpus;
  // The three places a driver version lives, recorded apart so that a driver upgraded without a
  // reboot or module reload shows (core/rules/driver_consistency.hpp); "" when not read.
  std::string kernel_module_version;     // /proc/driver/nvidia/version
  std::string nvml_driver_version;       // nvmlSystemGetDriverVersion (user-space library)
  std::string nvml_cuda_driver_version;  // nvmlSystemGetCudaDriverVersion_v2, "13.0"
  std::string libcuda_version;           // the libcuda.so.<version> this process mapped
  std::string boot_id;                   // /proc/sys/kernel/random/boot_id
  std::optional<double> uptime_s;        // /proc/uptime at inventory time
  // "CUDA_VISIBLE_DEVICES=0,1" or "NVIDIA_VISIBLE_DEVICES=GPU-..." when the process was given a
  // subset of the node's GPUs; "" when neither is set. GPUs outside it are not "not visible".
  std::string visible_devices;
  // NVML devices the inventory could not tie to a GPU of `gpus` (no handle, or neither UUID nor
  // bus id read), each "NVML GPU <nvml index>: <reading>: <NVML's answer>". Never dropped: the
  // record cannot pass with one (docs/inventory.md, "GPUs NVML cannot read").
  std::vector<std::string> nvml_devices_unread;
  // The rest of the stack (firmware, driver add-ons, container stack, Kubernetes Node, platform);
  // nullopt in records of a gpuqual that did not read it (core/record/stack_inventory.hpp).
  std::optional<StackInventory> stack;
};

struct HardwareClass {
  std::string slug;  // h200-sxm-141gb, or "unknown"
  int gpu_count = 0;
  std::string product;                      // GFD nvidia.com/gpu.product label value
  std::optional<std::uint64_t> memory_mib;  // GFD nvidia.com/gpu.memory
  bool overridden = false;                  // set by --class rather than derived
};

struct ToolInfo {
  std::string version;
  std::string git_revision;
};

struct RunRecord {
  std::string schema = kRunSchema;
  ToolInfo tool;
  std::string run_id;
  std::string started_at;  // RFC 3339 UTC
  std::string ended_at;    // empty while the run is in progress
  bool complete = false;   // false: run was interrupted or is still running
  std::vector<std::string> argv;
  std::string suite;
  NodeFacts node;
  HardwareClass hardware_class;
  std::vector<GpuInfo> gpus;
  std::vector<CheckResult> checks;
};

}  // namespace gpuqual
