#pragma once
// Shared by the GPU tests: skip (with the CUDA runtime's reason) when no GPU can be used, and a
// short measurement configuration so the whole GPU suite runs in well under a minute.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "device/measure.hpp"
#include "device/measure_gpus.hpp"

#define GPUQUAL_REQUIRE_GPU()                                               \
  do {                                                                      \
    const ::gpuqual::CudaProbe gpuqual_probe_ = ::gpuqual::probe_cuda();    \
    if (!gpuqual_probe_.ok()) GTEST_SKIP() << gpuqual_probe_.reason;        \
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);                               \
  } while (0)

namespace gpuqual::gpu_test {

inline MeasureConfig short_measure() {
  MeasureConfig c;
  c.warmup_s = 0.02;
  c.min_samples = 3;
  c.max_samples = 20;
  c.budget_s = 1.0;
  c.min_sample_s = 0.002;
  return c;
}

}  // namespace gpuqual::gpu_test
