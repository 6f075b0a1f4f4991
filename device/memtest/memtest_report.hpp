#pragma once
// How a memtest run becomes part of a check result (shared by the memtest and burnin checks):
// metrics (bytes tested, passes, GB/s), a fail finding `memtest.bit_errors` with per-pattern
// detail, and attributes with the first bad words of each pattern.
#include <string>

#include "device/measure/measure_gpus.hpp"
#include "device/memtest/memtest_runner.hpp"

namespace gpuqual {

// `prefix` is the metric/attribute prefix ("memtest" or "burnin.memtest").
void report_memtest(GpuOutcome& out, const std::string& prefix, int gpu, const MemtestRunResult& run);

}  // namespace gpuqual
