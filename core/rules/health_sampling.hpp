#pragma once
// When and what the health check samples while PCIe traffic runs, as plain functions the CPU
// tests drive (the NVML and CUDA sides plug in as callbacks):
// - sampling starts only once every traffic worker has finished a copy (or given up with an
//   error), not after a fixed delay: before its first copy a worker may still be creating its
//   context, and an idle link trains down (an idle H200 link reads Gen1);
// - the link is judged on the HIGHEST generation and width read while traffic ran: a link that
//   reached Gen5 x16 under load is healthy even if one sample caught it retraining.
#include <functional>
#include <optional>

#include "core/rules/health_snapshot.hpp"

namespace gpuqual {

struct LoadedSamplingSteps {
  std::function<void()> start_load;   // start the copy workers (may be empty: no load)
  std::function<bool()> load_ready;   // every worker has copied once or failed
  std::function<void()> take_sample;  // one NVML sample of every GPU
  std::function<void()> stop_load;
  std::function<bool()> should_stop;  // the runner asked the check to end
  std::function<double()> now_s;      // a monotonic clock, seconds
  std::function<void(double)> sleep_s;
};

struct LoadedSamplingReport {
  bool load_ready = false;  // sampling began with every worker having copied
  double waited_for_load_s = 0;
  int samples = 0;
};

// start_load → wait (polling every 10 ms, at most `load_wait_s`) for load_ready → take_sample
// every `interval_s` for `budget_s` (at least one sample) → stop_load. With no start_load,
// sampling starts at once. A load never ready still samples (the per-GPU evidence of traffic
// decides later whether a reading counts as under load) and says so in the report.
LoadedSamplingReport sample_while_loaded(const LoadedSamplingSteps& steps, double budget_s, double interval_s,
                                         double load_wait_s);

// Folds one reading of the current PCIe link into the sampled reading: the highest seen.
void keep_highest_link(GpuHealthReading& g, std::optional<int> gen, std::optional<int> width);

}  // namespace gpuqual
