#include "device/nvml/nvml_snapshot.hpp"

#include "core/base/utc_time.hpp"
#include "core/rules/health_core_fields.hpp"
#include "core/rules/health_sampling.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "device/nvml/nvml_error.hpp"
#include "device/nvml/nvml_fabric.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

namespace {

// Records "<what>: <NVML message>" unless the reading is simply not applicable to this board.
struct Reader {
  const NvmlSession& nvml;
  GpuHealthReading& g;

  bool ok(nvmlReturn_t rc, const char* what) {
    if (rc == NVML_SUCCESS) return true;
    g.unread.push_back(std::string(what) + ": " + nvml.error_text(rc));
    return false;
  }
  template <class Fn>
  bool has(Fn fn, const char* symbol, const char* what) {
    if (fn) return true;
    g.unread.push_back(std::string(what) + ": " + nvml.missing(symbol));
    return false;
  }
};

int cc_major(const std::string& cc) {
  try {
    return cc.empty() ? 0 : std::stoi(cc);
  } catch (const std::exception&) {
    return 0;
  }
}

void read_ecc(const NvmlApi& api, nvmlDevice_t h, Reader& r) {
  GpuHealthReading& g = r.g;
  if (r.has(api.nvmlDeviceGetEccMode, "nvmlDeviceGetEccMode", "ecc_mode")) {
    nvmlEnableState_t cur{}, pend{};
    if (r.ok(api.nvmlDeviceGetEccMode(h, &cur, &pend), "ecc_mode")) {
      g.ecc_enabled = cur == NVML_FEATURE_ENABLED;
      g.ecc_pending_enabled = pend == NVML_FEATURE_ENABLED;
    }
  }
  // Counters only mean something with ECC on; NVML answers NOT_SUPPORTED otherwise.
  if (!g.ecc_enabled.value_or(false)) return;
  if (r.has(api.nvmlDeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors", "ecc_counters")) {
    auto total = [&](nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                     std::optional<std::uint64_t>& out, const char* what) {
      unsigned long long v = 0;
      if (r.ok(api.nvmlDeviceGetTotalEccErrors(h, type, counter, &v), what)) out = v;
    };
    total(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, g.ecc_volatile_corrected,
          "ecc_volatile_corrected");
    total(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, g.ecc_volatile_uncorrected,
          "ecc_volatile_uncorrected");
    total(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, g.ecc_aggregate_corrected,
          "ecc_aggregate_corrected");
    total(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, g.ecc_aggregate_uncorrected,
          "ecc_aggregate_uncorrected");
  }
  // Per location: many boards report only some locations, so a failure here is not listed.
  if (api.nvmlDeviceGetMemoryErrorCounter) {
    auto at = [&](nvmlEccCounterType_t counter, nvmlMemoryLocation_t loc, std::optional<std::uint64_t>& out) {
      unsigned long long v = 0;
      if (api.nvmlDeviceGetMemoryErrorCounter(h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counter, loc, &v) ==
          NVML_SUCCESS)
        out = v;
    };
    at(NVML_VOLATILE_ECC, NVML_MEMORY_LOCATION_DRAM, g.ecc_dram_volatile_uncorrected);
    at(NVML_VOLATILE_ECC, NVML_MEMORY_LOCATION_SRAM, g.ecc_sram_volatile_uncorrected);
    at(NVML_AGGREGATE_ECC, NVML_MEMORY_LOCATION_SRAM, g.ecc_sram_aggregate_uncorrected);
  }
}

void read_memory_repair(const NvmlApi& api, nvmlDevice_t h, Reader& r) {
  GpuHealthReading& g = r.g;
  if (cc_major(g.compute_capability) >= 8) {
    // Ampere and later: row remapping replaces page retirement.
    if (r.has(api.nvmlDeviceGetRemappedRows, "nvmlDeviceGetRemappedRows", "remapped_rows")) {
      unsigned corr = 0, unc = 0, pending = 0, failure = 0;
      if (r.ok(api.nvmlDeviceGetRemappedRows(h, &corr, &unc, &pending, &failure), "remapped_rows")) {
        g.remapped_rows_correctable = corr;
        g.remapped_rows_uncorrectable = unc;
        g.remap_pending = pending != 0;
        g.remap_failure = failure != 0;
      }
    }
    return;
  }
  if (r.has(api.nvmlDeviceGetRetiredPages, "nvmlDeviceGetRetiredPages", "retired_pages")) {
    auto count = [&](nvmlPageRetirementCause_t cause, std::optional<std::uint64_t>& out, const char* what) {
      unsigned n = 0;  // with a zero-size buffer NVML returns the count
      nvmlReturn_t rc = api.nvmlDeviceGetRetiredPages(h, cause, &n, nullptr);
      if (rc == NVML_ERROR_INSUFFICIENT_SIZE) rc = NVML_SUCCESS;
      if (r.ok(rc, what)) out = n;
    };
    count(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, g.retired_pages_sbe,
          "retired_pages_sbe");
    count(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, g.retired_pages_dbe, "retired_pages_dbe");
  }
  if (r.has(api.nvmlDeviceGetRetiredPagesPendingStatus, "nvmlDeviceGetRetiredPagesPendingStatus",
            "retired_pages_pending")) {
    nvmlEnableState_t pending{};
    if (r.ok(api.nvmlDeviceGetRetiredPagesPendingStatus(h, &pending), "retired_pages_pending")) {
      g.retired_pages_pending = pending == NVML_FEATURE_ENABLED;
    }
  }
}

void read_limits(const NvmlApi& api, nvmlDevice_t h, Reader& r) {
  GpuHealthReading& g = r.g;
  unsigned v = 0;
  if (r.has(api.nvmlDeviceGetTemperatureThreshold, "nvmlDeviceGetTemperatureThreshold",
            "temperature_thresholds")) {
    if (r.ok(api.nvmlDeviceGetTemperatureThreshold(h, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v),
             "slowdown_temp")) {
      g.slowdown_temp_c = static_cast<int>(v);
    }
    if (api.nvmlDeviceGetTemperatureThreshold(h, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v) == NVML_SUCCESS) {
      g.shutdown_temp_c = static_cast<int>(v);
    }
  }
  if (r.has(api.nvmlDeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit", "power_limit") &&
      r.ok(api.nvmlDeviceGetEnforcedPowerLimit(h, &v), "power_limit")) {
    g.power_limit_w = v / 1000.0;
  }
  if (r.has(api.nvmlDeviceGetPowerManagementDefaultLimit, "nvmlDeviceGetPowerManagementDefaultLimit",
            "default_power_limit") &&
      r.ok(api.nvmlDeviceGetPowerManagementDefaultLimit(h, &v), "default_power_limit")) {
    g.default_power_limit_w = v / 1000.0;
  }
  if (r.has(api.nvmlDeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration", "pcie_max_gen") &&
      r.ok(api.nvmlDeviceGetMaxPcieLinkGeneration(h, &v), "pcie_max_gen")) {
    g.pcie_max_gen = static_cast<int>(v);
  }
  if (r.has(api.nvmlDeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth", "pcie_max_width") &&
      r.ok(api.nvmlDeviceGetMaxPcieLinkWidth(h, &v), "pcie_max_width")) {
    g.pcie_max_width = static_cast<int>(v);
  }
  if (api.nvmlDeviceGetGpuMaxPcieLinkGeneration &&
      api.nvmlDeviceGetGpuMaxPcieLinkGeneration(h, &v) == NVML_SUCCESS) {
    g.pcie_gpu_max_gen = static_cast<int>(v);
  }
  if (r.has(api.nvmlDeviceGetPcieReplayCounter, "nvmlDeviceGetPcieReplayCounter", "pcie_replay_counter") &&
      r.ok(api.nvmlDeviceGetPcieReplayCounter(h, &v), "pcie_replay_counter")) {
    g.pcie_replay_counter = v;
  }
}

void read_nvlinks(const NvmlApi& api, nvmlDevice_t h, GpuHealthReading& g) {
  if (!api.nvmlDeviceGetNvLinkState) return;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t active{};
    // Boards without NVLink (and links past the last) answer NOT_SUPPORTED / INVALID_ARGUMENT.
    if (api.nvmlDeviceGetNvLinkState(h, link, &active) != NVML_SUCCESS) continue;
    NvLinkReading l;
    l.link = static_cast<int>(link);
    l.active = active == NVML_FEATURE_ENABLED;
    if (api.nvmlDeviceGetNvLinkErrorCounter) {
      auto counter = [&](nvmlNvLinkErrorCounter_t c, std::optional<std::uint64_t>& out) {
        unsigned long long v = 0;
        if (api.nvmlDeviceGetNvLinkErrorCounter(h, link, c, &v) == NVML_SUCCESS) out = v;
      };
      counter(NVML_NVLINK_ERROR_DL_REPLAY, l.replay_errors);
      counter(NVML_NVLINK_ERROR_DL_RECOVERY, l.recovery_errors);
      counter(NVML_NVLINK_ERROR_DL_CRC_FLIT, l.crc_flit_errors);
      counter(NVML_NVLINK_ERROR_DL_CRC_DATA, l.crc_data_errors);
    }
    g.nvlinks.push_back(l);
  }
}

// A GPU lost while sampling (NVML_ERROR_GPU_IS_LOST) is named once among its unread readings,
// which the rules judge as gpu.lost; other failures of a sample leave the sample out.
void note_lost(nvmlReturn_t rc, const char* what, GpuHealthReading& g) {
  if (rc != NVML_ERROR_GPU_IS_LOST) return;
  const std::string entry = std::string(what) + ": " + nvml_error_text(rc);
  if (std::find(g.unread.begin(), g.unread.end(), entry) == g.unread.end()) g.unread.push_back(entry);
}

// The highest link seen while sampling (core/rules/health_sampling.hpp: idle links train down),
// and, once, why it was not read: the rules name NVML's answer (a vGPU guest's NOT_SUPPORTED).
void sample_link(const NvmlApi& api, nvmlDevice_t h, GpuHealthReading& g) {
  unsigned v = 0;
  std::optional<int> gen, width;
  nvmlReturn_t gen_rc = NVML_ERROR_FUNCTION_NOT_FOUND, width_rc = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (api.nvmlDeviceGetCurrPcieLinkGeneration &&
      (gen_rc = api.nvmlDeviceGetCurrPcieLinkGeneration(h, &v)) == NVML_SUCCESS) {
    gen = static_cast<int>(v);
  }
  if (api.nvmlDeviceGetCurrPcieLinkWidth &&
      (width_rc = api.nvmlDeviceGetCurrPcieLinkWidth(h, &v)) == NVML_SUCCESS) {
    width = static_cast<int>(v);
  }
  keep_highest_link(g, gen, width);
  const nvmlReturn_t failed = gen_rc != NVML_SUCCESS ? gen_rc : width_rc;
  note_lost(failed, "pcie_link", g);
  if (failed == NVML_SUCCESS || (g.pcie_gen && g.pcie_width)) return;
  const bool noted = std::any_of(g.unread.begin(), g.unread.end(),
                                 [](const std::string& u) { return u.starts_with("pcie_link:"); });
  if (!noted) g.unread.push_back("pcie_link: " + nvml_error_text(failed));
}

void sample_one(const NvmlApi& api, nvmlDevice_t h, GpuHealthReading& g) {
  unsigned long long reasons = 0;
  nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (api.nvmlDeviceGetCurrentClocksEventReasons)
    rc = api.nvmlDeviceGetCurrentClocksEventReasons(h, &reasons);
  else if (api.nvmlDeviceGetCurrentClocksThrottleReasons)
    rc = api.nvmlDeviceGetCurrentClocksThrottleReasons(h, &reasons);
  note_lost(rc, "clock_event_reasons", g);
  if (rc == NVML_SUCCESS) {
    g.throttle_reasons = g.throttle_reasons.value_or(0) | reasons;
    ++g.throttle_samples;
    if (reasons & nvmlClocksThrottleReasonHwSlowdown) ++g.hw_slowdown_samples;
    if (reasons & nvmlClocksThrottleReasonHwThermalSlowdown) ++g.hw_thermal_samples;
    if (reasons & nvmlClocksThrottleReasonHwPowerBrakeSlowdown) ++g.hw_power_brake_samples;
    if (reasons & nvmlClocksEventReasonSwThermalSlowdown) ++g.sw_thermal_samples;
    if (reasons & nvmlClocksEventReasonSwPowerCap) ++g.sw_power_cap_samples;
  }
  const std::optional<int> temp = read_gpu_temperature_c(api, h);
  if (temp) g.temperature_c = std::max(g.temperature_c.value_or(*temp), *temp);
  sample_link(api, h, g);
}

}  // namespace

NvmlHealthReader::NvmlHealthReader(const NvmlSession& nvml, const std::vector<GpuInfo>& record_gpus)
    : nvml_(nvml) {
  std::string count_error;
  const std::vector<NvmlDeviceRef> all = scan_nvml_devices(nvml, &count_error);
  if (!count_error.empty()) problems_.push_back(count_error);
  if (nvml.ok() && count_error.empty()) nvml_count_ = static_cast<int>(all.size());
  std::vector<NvmlDeviceRef> untied;  // not tied to a GPU of the run: never dropped
  for (const auto& d : all) {
    std::optional<int> index;
    if (record_gpus.empty() && d.opened() && d.identified()) index = static_cast<int>(d.nvml_index);
    for (const auto& g : record_gpus) {
      if (match_nvml_device({d}, g.uuid, g.pci_bus_id)) index = g.index;
    }
    if (!index && (!d.opened() || !d.identified())) untied.push_back(d);
    if (!index) continue;  // untied, or identified and not one of this run's GPUs
    devices_.push_back(d);
    record_index_.push_back(*index);
  }
  // A GPU of the run NVML lists under no UUID or bus id: NVML's answer for it by bus id (a GPU
  // CUDA still lists that NVML lost), so the finding names the GPU.
  for (const auto& g : record_gpus) {
    if (std::find(record_index_.begin(), record_index_.end(), g.index) != record_index_.end()) continue;
    const std::string answer = nvml_handle_answer(nvml, g.pci_bus_id);
    if (answer.empty()) continue;
    unopened_.push_back({g.index, g.name, g.uuid, g.pci_bus_id, answer});
    account_for_unopened(untied, answer);
  }
  for (const auto& d : untied) unidentified_.push_back(nvml_device_problem(d));
}

int NvmlHealthReader::record_index_of(nvmlDevice_t device) const {
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].handle == device) return record_index_[i];
  }
  return -1;
}

HealthSnapshot NvmlHealthReader::read() const {
  HealthSnapshot s;
  s.taken_at = utc_now_rfc3339();
  if (!nvml_.ok()) {
    s.nvml_reason = nvml_.reason();
    return s;
  }
  s.nvml_available = true;
  s.nvml_gpu_count = nvml_count_;
  const NvmlApi& api = nvml_.api();
  if (api.nvmlSystemGetDriverVersion) {
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    if (api.nvmlSystemGetDriverVersion(buf, sizeof buf) == NVML_SUCCESS) s.driver_version = buf;
  }
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const NvmlDeviceRef& d = devices_[i];
    GpuHealthReading g;
    g.index = record_index_[i];
    g.uuid = d.uuid;
    g.pci_bus_id = d.pci_bus_id;
    GpuInfo info;
    fill_gpu_from_nvml(nvml_, d, info);
    g.unread = info.nvml_unread;  // the UUID or bus id not read; a reading the GPU was lost at
    g.name = info.name;
    g.compute_capability = info.compute_capability;
    g.virtualization_mode = info.virtualization_mode;
    // A lost GPU answers nothing more; its readings are not asked for (gpu.lost judges it).
    if (std::any_of(g.unread.begin(), g.unread.end(), nvml_answer_lost)) {
      s.gpus.push_back(std::move(g));
      continue;
    }
    Reader r{nvml_, g};
    read_ecc(api, d.handle, r);
    read_memory_repair(api, d.handle, r);
    read_limits(api, d.handle, r);
    read_nvlinks(api, d.handle, g);
    read_gpu_fabric(nvml_, d.handle, g);  // after the links: it reads each one's version and speed
    s.gpus.push_back(std::move(g));
  }
  // After the opened devices (sample() goes through them in this order): the run's GPUs NVML
  // gave no handle for, with its answer, and the devices not tied to a GPU, each judged
  // (core/rules/health_rules.hpp). The count's failure is kept on the first GPU's list.
  for (const Unopened& u : unopened_) {
    GpuHealthReading g;
    g.index = u.index;
    g.name = u.name;
    g.uuid = u.uuid;
    g.pci_bus_id = u.pci_bus_id;
    g.unread.push_back(u.answer);
    s.gpus.push_back(std::move(g));
  }
  s.unidentified = unidentified_;
  if (!problems_.empty() && !s.gpus.empty()) {
    for (const auto& p : problems_) s.gpus.front().unread.push_back(p);
  }
  return s;
}

void NvmlHealthReader::sample(HealthSnapshot& snapshot) const {
  if (!nvml_.ok()) return;
  for (std::size_t i = 0; i < devices_.size() && i < snapshot.gpus.size(); ++i) {
    sample_one(nvml_.api(), devices_[i].handle, snapshot.gpus[i]);
  }
}

}  // namespace gpuqual
