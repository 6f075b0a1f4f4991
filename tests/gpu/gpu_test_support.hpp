#pragma once
// Shared by the GPU tests: skip (with the CUDA runtime's reason) when no GPU can be used, and a
// short measurement configuration so the whole GPU suite runs in well under a minute.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <iostream>
#include <optional>

#include "device/measure.hpp"
#include "device/measure_class_floors.hpp"
#include "device/measure_gpus.hpp"

#define GPUQUAL_REQUIRE_GPU()                                            \
  do {                                                                   \
    const ::gpuqual::CudaProbe gpuqual_probe_ = ::gpuqual::probe_cuda(); \
    if (!gpuqual_probe_.ok()) GTEST_SKIP() << gpuqual_probe_.reason;     \
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);                            \
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

// The class floors of GPU 0 (device/measure_class_floors.hpp), or nullopt with the class named
// in the log: such a GPU is held to the unit-error bounds only.
inline std::optional<ClassFloors> gpu0_floors() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return std::nullopt;
  const std::string slug = gpu_class_slug(prop.name, prop.totalGlobalMem);
  auto floors = class_floors(slug);
  std::cout << "[ INFO ] class " << slug
            << (floors ? ": class floors apply" : ": no class floors, unit-error bounds only") << "\n";
  return floors;
}

}  // namespace gpuqual::gpu_test
