#pragma once
// A background thread that reads NVML telemetry of a set of GPUs at a fixed rate (burn-in: 1 Hz):
// temperature, power and enforced limit, SM/memory clocks (where the NVML table has
// nvmlDeviceGetClockInfo), clock event reasons, volatile ECC totals. Every sample is appended as
// one JSON line to a side file; in memory each GPU keeps only a fixed-size TelemetrySummary, so
// memory stays bounded for any duration. Nothing throws from the thread: problems are kept and
// reported by notes().
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/rules/telemetry_summary.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

class TelemetrySampler {
 public:
  // `cuda_gpus` are CUDA device indices (matched to NVML by PCI bus id). `side_file` may be ""
  // (no stream, summaries only). `nvml` must outlive the sampler.
  TelemetrySampler(const NvmlSession& nvml, std::vector<int> cuda_gpus, std::string side_file, double hz);
  ~TelemetrySampler();  // stops the thread; never throws
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  void start();
  void stop();
  // Copies of the per-GPU summaries, in the order of `cuda_gpus` (safe while running).
  std::vector<TelemetrySummary> summaries() const;
  // Why readings are missing (no NVML, GPU not matched, side file not writable), per GPU.
  std::vector<std::string> notes() const;
  // The latest sample per GPU, for progress lines.
  std::vector<TelemetrySample> latest() const;
  std::uint64_t lines_written() const { return lines_; }

 private:
  void loop();
  TelemetrySample read_one(std::size_t slot, double t_s);

  const NvmlSession& nvml_;
  std::vector<int> gpus_;
  std::vector<void*> handles_;  // nvmlDevice_t per slot, null when unmatched
  std::string side_file_;
  double period_s_;
  std::FILE* file_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> lines_{0};
  mutable std::mutex mu_;
  std::vector<TelemetrySummary> summaries_;
  std::vector<TelemetrySample> latest_;
  std::vector<std::string> notes_;
};

}  // namespace gpuqual
