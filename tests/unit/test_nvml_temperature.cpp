// read_gpu_temperature_c (device/nvml/nvml_devices.hpp): the health snapshot and the telemetry
// sampler read temperature through nvmlDeviceGetTemperatureV first, the deprecated call only
// where a driver lacks it or it fails. Fake NVML entry points, no driver needed.
#include <gtest/gtest.h>

#include "device/nvml/nvml_devices.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {
namespace {

int deprecated_calls = 0;

nvmlReturn_t temperature_v_41(nvmlDevice_t, nvmlTemperature_t* t) {
  if (t->version != nvmlTemperature_v1 || t->sensorType != NVML_TEMPERATURE_GPU)
    return NVML_ERROR_INVALID_ARGUMENT;
  t->temperature = 41;
  return NVML_SUCCESS;
}
nvmlReturn_t temperature_v_unsupported(nvmlDevice_t, nvmlTemperature_t*) { return NVML_ERROR_NOT_SUPPORTED; }
nvmlReturn_t deprecated_57(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned* v) {
  ++deprecated_calls;
  *v = 57;
  return NVML_SUCCESS;
}

NvmlApi api_with(decltype(NvmlApi::nvmlDeviceGetTemperatureV) v,
                 decltype(NvmlApi::nvmlDeviceGetTemperature) old) {
  NvmlApi api;
  api.nvmlDeviceGetTemperatureV = v;
  api.nvmlDeviceGetTemperature = old;
  return api;
}

TEST(NvmlTemperature, TheVersionedCallComesFirst) {
  deprecated_calls = 0;
  EXPECT_EQ(read_gpu_temperature_c(api_with(temperature_v_41, deprecated_57), nullptr), 41);
  EXPECT_EQ(deprecated_calls, 0);
}

TEST(NvmlTemperature, TheDeprecatedCallOnlyWhereTheVersionedOneCannotRead) {
  deprecated_calls = 0;
  EXPECT_EQ(read_gpu_temperature_c(api_with(temperature_v_unsupported, deprecated_57), nullptr), 57);
  EXPECT_EQ(read_gpu_temperature_c(api_with(nullptr, deprecated_57), nullptr), 57);  // an older driver
  EXPECT_EQ(deprecated_calls, 2);
  EXPECT_FALSE(read_gpu_temperature_c(api_with(temperature_v_unsupported, nullptr), nullptr).has_value());
  EXPECT_FALSE(read_gpu_temperature_c(NvmlApi{}, nullptr).has_value());
}

}  // namespace
}  // namespace gpuqual
