#include "device/measure/measure_clock_probe.hpp"

#include <cuda_runtime_api.h>

#include "device/nvml/nvml_devices.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

namespace {

struct ReasonBit {
  unsigned long long bit;
  const char* name;
  bool throttles;
};

constexpr ReasonBit kReasons[] = {
    {0x1ULL, "gpu_idle", false},
    {0x2ULL, "applications_clocks_setting", false},
    {0x4ULL, "sw_power_cap", false},
    {0x8ULL, "hw_slowdown", true},
    {0x10ULL, "sync_boost", false},
    {0x20ULL, "sw_thermal_slowdown", true},
    {0x40ULL, "hw_thermal_slowdown", true},
    {0x80ULL, "hw_power_brake_slowdown", true},
    {0x100ULL, "display_clock_setting", false},
    {0x200ULL, "board_limit", true},
    {0x400ULL, "reliability", true},
};

// Pure rules over NVML's reason bit mask (nvmlClocksEventReason*).
bool clock_reasons_throttle(unsigned long long mask) {
  for (const auto& r : kReasons) {
    if (r.throttles && (mask & r.bit)) return true;
  }
  return false;
}

// "sw_power_cap,hw_thermal_slowdown".
std::string clock_reason_names(unsigned long long mask) {
  std::string out;
  unsigned long long known = 0;
  for (const auto& r : kReasons) {
    known |= r.bit;
    if (mask & r.bit) out += (out.empty() ? "" : ",") + std::string(r.name);
  }
  if (mask & ~known) out += (out.empty() ? "" : ",") + std::string("other");
  return out;
}

}  // namespace

ClockProbe make_nvml_clock_probe(const NvmlSession& nvml, int cuda_device, std::string* why) {
  if (!nvml.ok()) {
    *why = nvml.reason();
    return {};
  }
  const auto& api = nvml.api();
  auto reasons_fn = api.nvmlDeviceGetCurrentClocksEventReasons;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  if (!reasons_fn)
    reasons_fn = reinterpret_cast<decltype(reasons_fn)>(api.nvmlDeviceGetCurrentClocksThrottleReasons);
#pragma GCC diagnostic pop
  if (!reasons_fn) {
    *why = nvml.missing("nvmlDeviceGetCurrentClocksEventReasons");
    return {};
  }
  if (!api.nvmlDeviceGetHandleByPciBusId_v2) {
    *why = nvml.missing("nvmlDeviceGetHandleByPciBusId_v2");
    return {};
  }
  char bus_id[64] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess) {
    (void)cudaGetLastError();
    *why = "cannot read the PCI bus id of CUDA device " + std::to_string(cuda_device);
    return {};
  }
  nvmlDevice_t device = nullptr;
  const nvmlReturn_t st = api.nvmlDeviceGetHandleByPciBusId_v2(bus_id, &device);
  if (st != NVML_SUCCESS) {
    *why = std::string("NVML has no device at ") + bus_id + ": " + nvml.error_text(st);
    return {};
  }
  why->clear();
  const NvmlSession* session = &nvml;
  return [session, device, reasons_fn]() {
    ClockReading reading;
    unsigned long long mask = 0;
    if (reasons_fn(device, &mask) == NVML_SUCCESS) {
      reading.throttled = clock_reasons_throttle(mask);
      reading.reasons = clock_reason_names(mask & ~0x1ULL);  // idle between samples is expected
    }
    reading.sm_clock_mhz = read_clock_mhz(session->api(), device, NVML_CLOCK_SM);
    return reading;
  };
}

}  // namespace gpuqual
