#pragma once
// The HBM bandwidth measurement on one GPU: three arrays of at least 4 x L2 with seeded data,
// each STREAM kernel timed by the measurement engine, then verified: every element on the GPU
// against the generator, a sample replayed on the host, and the read-only kernel's sum compared
// with the exact sum computed from the generator.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/hbm/hbm_plan.hpp"
#include "device/measure/measure.hpp"

namespace gpuqual {

struct HbmConfig {
  std::vector<StreamKernel> kernels = all_stream_kernels();
  std::uint64_t array_bytes = 0;  // 0: plan_hbm_arrays' default
  std::uint64_t seed = 1;
  int verify_samples = 1024;
  unsigned threads_per_block = 256;
  MeasureConfig measure;
};

struct HbmKernelResult {
  StreamKernel kernel = StreamKernel::copy;
  MeasureResult measure;
  double bytes_per_op = 0;
  unsigned long long device_mismatches = 0;  // elements of a, b or d the GPU-side check found wrong
  unsigned long long first_mismatch = 0;
  HbmReplay replay;          // host replay of sampled elements
  bool sum_checked = false;  // read kernel only
  double sum_got = 0, sum_expected = 0;
  bool ok() const;
  std::string problem() const;  // what was wrong, "" when ok()
};

struct HbmRunResult {
  HbmArrayPlan arrays;
  std::uint64_t l2_bytes = 0;
  unsigned blocks = 0, threads = 0;
  std::vector<HbmKernelResult> kernels;
};

// Test hook: damages memory after a kernel was timed, before it is verified.
// Arguments: kernel, a, b, d (device pointers), elements.
using HbmCorruptor = std::function<void(StreamKernel, double*, double*, double*, std::uint64_t)>;

// Runs on the current device. Throws CudaError (and std::invalid_argument for a bad size).
HbmRunResult run_hbm(const HbmConfig& config, const MeasureHooks& hooks, const HbmCorruptor& corrupt = {});

}  // namespace gpuqual
