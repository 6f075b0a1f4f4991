#include "device/monitor/telemetry_sampler.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "device/nvml/nvml_devices.hpp"

namespace gpuqual {
namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

TelemetrySampler::TelemetrySampler(const NvmlSession& nvml, std::vector<int> cuda_gpus, std::string side_file,
                                   double hz)
    : nvml_(nvml),
      gpus_(std::move(cuda_gpus)),
      side_file_(std::move(side_file)),
      period_s_(hz > 0 ? 1.0 / hz : 1.0),
      summaries_(gpus_.size()),
      latest_(gpus_.size()),
      notes_(gpus_.size()) {
  handles_.assign(gpus_.size(), nullptr);
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    if (!nvml_.ok()) {
      notes_[i] = "no telemetry: " + nvml_.reason();
      continue;
    }
    if (!nvml_.api().nvmlDeviceGetHandleByPciBusId_v2) {
      notes_[i] = "no telemetry: " + nvml_.missing("nvmlDeviceGetHandleByPciBusId_v2");
      continue;
    }
    char bus[64] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, gpus_[i]) != cudaSuccess) {
      (void)cudaGetLastError();
      notes_[i] = "no telemetry: cannot read the PCI bus id of CUDA device " + std::to_string(gpus_[i]);
      continue;
    }
    nvmlDevice_t h = nullptr;
    const nvmlReturn_t st = nvml_.api().nvmlDeviceGetHandleByPciBusId_v2(bus, &h);
    if (st != NVML_SUCCESS) {
      notes_[i] = std::string("no telemetry: NVML has no device at ") + bus + ": " + nvml_.error_text(st);
      continue;
    }
    handles_[i] = h;
  }
}

TelemetrySampler::~TelemetrySampler() {
  try {
    stop();
  } catch (...) {
  }
}

void TelemetrySampler::start() {
  if (!side_file_.empty()) {
    // The run's side directory is made by its first writer (runner/commands/cmd_run.cpp).
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(side_file_).parent_path(), ec);
    file_ = std::fopen(side_file_.c_str(), "w");
    if (!file_) {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& n : notes_) n += (n.empty() ? "" : "; ") + ("side file " + side_file_ + " not writable");
    }
  }
  stop_ = false;
  thread_ = std::thread([this] { loop(); });
}

void TelemetrySampler::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
}

TelemetrySample TelemetrySampler::read_one(std::size_t slot, double t_s) {
  TelemetrySample s;
  s.t_s = t_s;
  auto* h = static_cast<nvmlDevice_t>(handles_[slot]);
  if (!h) return s;
  const NvmlApi& api = nvml_.api();
  unsigned v = 0;
  if (const auto temp = read_gpu_temperature_c(api, h)) s.temperature_c = *temp;
  if (api.nvmlDeviceGetPowerUsage && api.nvmlDeviceGetPowerUsage(h, &v) == NVML_SUCCESS)
    s.power_w = v / 1000.0;
  if (api.nvmlDeviceGetEnforcedPowerLimit && api.nvmlDeviceGetEnforcedPowerLimit(h, &v) == NVML_SUCCESS) {
    s.power_limit_w = v / 1000.0;
  }
  s.sm_clock_mhz = read_clock_mhz(api, h, NVML_CLOCK_SM);
  s.mem_clock_mhz = read_clock_mhz(api, h, NVML_CLOCK_MEM);
  unsigned long long mask = 0;
  auto reasons = api.nvmlDeviceGetCurrentClocksEventReasons;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  if (!reasons) reasons = reinterpret_cast<decltype(reasons)>(api.nvmlDeviceGetCurrentClocksThrottleReasons);
#pragma GCC diagnostic pop
  if (reasons && reasons(h, &mask) == NVML_SUCCESS) s.clock_reasons = mask;
  unsigned long long count = 0;
  if (api.nvmlDeviceGetTotalEccErrors) {
    if (api.nvmlDeviceGetTotalEccErrors(h, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &count) ==
        NVML_SUCCESS) {
      s.ecc_corrected = count;
    }
    if (api.nvmlDeviceGetTotalEccErrors(h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &count) ==
        NVML_SUCCESS) {
      s.ecc_uncorrected = count;
    }
  }
  return s;
}

void TelemetrySampler::loop() {
  const auto t0 = std::chrono::steady_clock::now();
  auto next = t0;
  while (!stop_) {
    const double t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (std::size_t i = 0; i < gpus_.size(); ++i) {
      if (!handles_[i]) continue;  // nothing readable: no sample rather than an empty one
      const TelemetrySample s = read_one(i, t_s);
      {
        std::lock_guard<std::mutex> lock(mu_);
        summaries_[i].add(s);
        latest_[i] = s;
      }
      if (file_) {
        const nlohmann::json line = {{"t_s", s.t_s},
                                     {"gpu", gpus_[i]},
                                     {"temperature_c", opt(s.temperature_c)},
                                     {"power_w", opt(s.power_w)},
                                     {"power_limit_w", opt(s.power_limit_w)},
                                     {"sm_clock_mhz", opt(s.sm_clock_mhz)},
                                     {"mem_clock_mhz", opt(s.mem_clock_mhz)},
                                     {"clock_reasons", opt(s.clock_reasons)},
                                     {"ecc_corrected", opt(s.ecc_corrected)},
                                     {"ecc_uncorrected", opt(s.ecc_uncorrected)}};
        const std::string text = line.dump() + "\n";
        if (std::fwrite(text.data(), 1, text.size(), file_) == text.size()) ++lines_;
        std::fflush(file_);
      }
    }
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(period_s_));
    // Sleep in short slices so stop() returns promptly.
    while (!stop_ && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<TelemetrySummary> TelemetrySampler::summaries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return summaries_;
}

std::vector<std::string> TelemetrySampler::notes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return notes_;
}

std::vector<TelemetrySample> TelemetrySampler::latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

}  // namespace gpuqual
