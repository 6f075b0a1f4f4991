#pragma once
// Small shared pieces of how benchmark checks write what they measured into their result:
// the measurement's facts as attributes, and sentences for GPUs CUDA cannot see.
#include <cstdint>
#include <string>
#include <vector>

#include "device/measure/measure.hpp"
#include "device/measure/measure_gpus.hpp"

namespace gpuqual {

// Under "<key>.gpu<N>.": "stop" (converged, or why not, with the CV), "reps_per_sample",
// "sm_clock_mhz" (median, when the probe read clocks) and "clock_reasons" (when any were seen).
// A measurement the budget stopped below its min_samples makes `out` warn ("too few samples to
// gate on").
void record_measurement_attributes(GpuOutcome& out, const std::string& key, int gpu, const MeasureResult& m);

// "GPU 5, 6 requested but CUDA sees 4 devices".
std::string invisible_reason(const std::vector<int>& invisible, int device_count);

std::string join_numbers(const std::vector<std::uint64_t>& values);  // "4096,8192"

}  // namespace gpuqual
