#pragma once
// Shared by the GPU tests: skip (with the CUDA runtime's reason) when no GPU can be used, and a
// short measurement configuration so the whole GPU suite runs in well under a minute.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <string>

#include "core/baseline/baseline.hpp"
#include "device/measure/measure.hpp"
#include "device/measure/measure_gpus.hpp"
#include "tests/support/class_floors.hpp"

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

// The class floors of GPU 0 from the shipped floors file (tests/support/class_floors.hpp: the
// same file `gpuqual compare --baseline auto` judges a record of the class against), or nullopt
// with the class named in the log: such a GPU is held to the unit-error bounds only.
inline std::optional<ClassFloors> gpu0_floors() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return std::nullopt;
  const std::string slug = gpu_class_slug(prop.name, prop.totalGlobalMem);
  auto floors = class_floors(slug, baselines_dir(""), machine_is_vm());
  std::cout << "[ INFO ] class " << slug
            << (floors ? ": class floors from " + floors->source
                       : ": no class floors, unit-error bounds only")
            << "\n";
  return floors;
}

// The floor of `metric` for GPU 0's class, else `unit_bound`; `whose` names which it is.
inline double floor_or(const std::optional<ClassFloors>& floors, const std::string& metric, double unit_bound,
                       std::string* whose) {
  const auto f = floors ? floors->of(metric) : std::nullopt;
  *whose = f ? floors->slug + " floor" : std::string("unit-error bound");
  return f.value_or(unit_bound);
}

}  // namespace gpuqual::gpu_test
