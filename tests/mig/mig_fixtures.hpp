#pragma once
// Shared by the MIG tests: the fake NVML (tests/mig/fake_nvml.cpp) opened on one topology of
// tests/data/mig, and the GPUs the inventory reads from it through the driver's code path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "device/nvml/nvml_devices.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual::mig_test {

inline std::string topology(const std::string& name) {
  return std::string(GPUQUAL_TEST_DATA) + "/mig/" + name;
}

// The GPUs as collect_inventory fills them from NVML (list_nvml_devices, fill_gpu_from_nvml),
// read from the fake library loaded with NvmlSession::open: the same dlopen path as the driver's.
inline std::vector<GpuInfo> gpus_from_fake_nvml(const std::string& topology_path) {
  ::setenv("GPUQUAL_FAKE_NVML_TOPOLOGY", topology_path.c_str(), 1);
  NvmlSession nvml = NvmlSession::open(GPUQUAL_FAKE_NVML);
  EXPECT_TRUE(nvml.ok()) << nvml.reason();
  std::vector<GpuInfo> gpus;
  for (const NvmlDeviceRef& d : list_nvml_devices(nvml)) {
    GpuInfo g;
    g.index = static_cast<int>(d.nvml_index);
    fill_gpu_from_nvml(nvml, d, g);
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace gpuqual::mig_test
