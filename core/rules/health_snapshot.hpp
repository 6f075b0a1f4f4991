#pragma once
// NVML health readings as plain data, so the health rules (health_rules.hpp) are pure C++ that
// CPU tests drive with fixtures (tests/data/health/*.json) and a GPU node fills from NVML
// (device/nvml/nvml_snapshot.hpp). Every reading is optional: std::nullopt means "not read", and
// `unread` says why ("remapped_rows: NVML_ERROR_NOT_SUPPORTED"), so a rule never mistakes a
// missing counter for a zero.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuqual {

struct NvLinkReading {
  int link = 0;
  bool active = false;
  std::optional<std::uint64_t> replay_errors;    // NVML_NVLINK_ERROR_DL_REPLAY
  std::optional<std::uint64_t> recovery_errors;  // NVML_NVLINK_ERROR_DL_RECOVERY
  std::optional<std::uint64_t> crc_flit_errors;  // NVML_NVLINK_ERROR_DL_CRC_FLIT
  std::optional<std::uint64_t> crc_data_errors;  // NVML_NVLINK_ERROR_DL_CRC_DATA
  // NVML_FI_DEV_NVLINK_GET_VERSION (an nvmlNvlinkVersion_t: 6 = NVLink 4.0, 7 = 5.0) and
  // NVML_FI_DEV_NVLINK_GET_SPEED (MBps) of this link; nullopt where NVML does not give them.
  std::optional<int> version;
  std::optional<std::uint64_t> speed_mbps;
};

// nvmlDeviceGetGpuFabricInfoV (nvmlGpuFabricInfo_v3_t): the GPU's registration with the NVLink
// fabric (NVSwitch systems: Fabric Manager or the NVLink subnet manager).
struct GpuFabricReading {
  int state = 0;            // NVML_GPU_FABRIC_STATE_* (0 not supported .. 3 completed)
  int status = 0;           // the probe's nvmlReturn_t; meaningful once state is completed
  std::string status_text;  // NVML's name for `status` ("NVML_SUCCESS")
  unsigned clique_id = 0;
  std::string cluster_uuid;                  // the cluster UUID as 8-4-4-4-12 hex ("" when all zero)
  std::optional<std::uint32_t> health_mask;  // NVML_GPU_FABRIC_HEALTH_MASK_* fields (v2 and later)
};

struct GpuHealthReading {
  int index = 0;  // the GPU's index in the run record (CUDA ordinal when known)
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  std::string compute_capability;  // "9.0"; retired pages apply before 8.0, remapped rows from 8.0
  // The GPU's NVML virtualization mode as the record spells it ("vgpu" in a vGPU guest, where
  // NVML does not give every reading a bare-metal GPU has; "" when not read).
  std::string virtualization_mode;

  // ECC mode and counters (NVML_MEMORY_ERROR_TYPE_{CORRECTED,UNCORRECTED} x {VOLATILE,AGGREGATE}).
  std::optional<bool> ecc_enabled;
  std::optional<bool> ecc_pending_enabled;  // mode after the next reset
  std::optional<std::uint64_t> ecc_volatile_corrected;
  std::optional<std::uint64_t> ecc_volatile_uncorrected;
  std::optional<std::uint64_t> ecc_aggregate_corrected;
  std::optional<std::uint64_t> ecc_aggregate_uncorrected;
  // By location where the GPU reports it (nvmlDeviceGetMemoryErrorCounter).
  std::optional<std::uint64_t> ecc_dram_volatile_uncorrected;
  std::optional<std::uint64_t> ecc_sram_volatile_uncorrected;
  std::optional<std::uint64_t> ecc_sram_aggregate_uncorrected;

  // Page retirement (before Ampere).
  std::optional<std::uint64_t> retired_pages_sbe;
  std::optional<std::uint64_t> retired_pages_dbe;
  std::optional<bool> retired_pages_pending;

  // Row remapping (Ampere and later).
  std::optional<std::uint64_t> remapped_rows_correctable;
  std::optional<std::uint64_t> remapped_rows_uncorrectable;
  std::optional<bool> remap_pending;
  std::optional<bool> remap_failure;

  // Clock event ("throttle") reasons: the union of the bitmasks seen over `throttle_samples`
  // samples, and how many samples had each reason of interest.
  std::optional<std::uint64_t> throttle_reasons;
  int throttle_samples = 0;
  int hw_slowdown_samples = 0;
  int hw_thermal_samples = 0;
  int hw_power_brake_samples = 0;
  int sw_thermal_samples = 0;
  int sw_power_cap_samples = 0;

  std::optional<int> temperature_c;     // highest seen
  std::optional<int> slowdown_temp_c;   // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
  std::optional<int> shutdown_temp_c;   // NVML_TEMPERATURE_THRESHOLD_SHUTDOWN
  std::optional<double> power_limit_w;  // enforced limit
  std::optional<double> default_power_limit_w;

  std::optional<int> pcie_gen;      // highest current generation seen while sampling
  std::optional<int> pcie_width;    // highest current width seen while sampling
  std::optional<int> pcie_max_gen;  // max of this GPU in this slot (nvmlDeviceGetMaxPcieLinkGeneration)
  std::optional<int> pcie_max_width;
  std::optional<int> pcie_gpu_max_gen;  // max the GPU itself supports
  bool pcie_read_under_load = false;    // links train down when idle: idle readings are weaker evidence
  std::optional<std::uint64_t> pcie_replay_counter;

  std::vector<NvLinkReading> nvlinks;  // links NVML answers for; empty on boards without NVLink

  // The fabric registration; nullopt with `fabric_unread` saying why (an older driver without
  // nvmlDeviceGetGpuFabricInfoV, a GPU without fabric support). Never a core field: not read
  // is `info` (core/rules/gpu_fabric.hpp).
  std::optional<GpuFabricReading> fabric;
  std::string fabric_unread;
  // NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (nvmlDeviceGpuRecoveryAction_t): what the driver says
  // this GPU needs (the action an Xid 154 announces); nullopt where NVML does not give it.
  std::optional<int> recovery_action;

  std::vector<std::string> unread;  // "<reading>: <why>" for each reading NVML did not give
};

// One Xid seen by NVML (nvmlEventTypeXidCriticalError) during the run.
struct XidEvent {
  int code = 0;
  std::optional<int> gpu;  // run-record GPU index, when the device was matched
  std::string uuid;
  std::string time;          // RFC 3339 UTC, when the parent saw the event
  std::string during_check;  // gpuqual check running on that GPU at the time, if any
};

struct HealthSnapshot {
  bool nvml_available = false;
  std::string nvml_reason;  // why NVML is unavailable (library missing, init failed)
  std::string driver_version;
  std::string taken_at;  // RFC 3339 UTC
  // Every GPU NVML lists on the node, including ones outside this run's selection
  // (CUDA_VISIBLE_DEVICES) and ones it cannot open; the GPU-count rule uses it. Empty: gpus.size().
  std::optional<int> nvml_gpu_count;
  std::vector<GpuHealthReading> gpus;  // the run's GPUs only (indices name run-record GPUs)
  // Devices NVML lists that could not be tied to a GPU of the run (not opened, neither UUID nor
  // bus id read): "NVML GPU 3: handle: NVML_ERROR_GPU_IS_LOST: GPU is lost". Each is judged:
  // gpu.lost when NVML answered GPU_IS_LOST, else the check cannot pass (health_rules.hpp).
  std::vector<std::string> unidentified;
  std::vector<XidEvent> xids;  // events captured while the snapshot's window was open
};

}  // namespace gpuqual
