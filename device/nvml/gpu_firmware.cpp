#include "device/nvml/gpu_firmware.hpp"

#include <fmt/format.h>

#include "device/nvml/nvml_devices.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

namespace {

// Runs one NVML string getter into a buffer of the size nvml.h guarantees is large enough.
template <std::size_t N, class Call>
StackFact nvml_string(const NvmlSession& nvml, const char* symbol, bool present, Call call) {
  if (!present) return StackFact::unread(nvml.missing(symbol));
  char buf[N] = {};
  const nvmlReturn_t st = call(buf);
  if (st != NVML_SUCCESS) return StackFact::unread(fmt::format("{}: {}", symbol, nvml.error_text(st)));
  return StackFact::read(buf);
}

StackFact inforom_object(const NvmlSession& nvml, nvmlDevice_t h, nvmlInforomObject_t object,
                         const char* name) {
  const auto& api = nvml.api();
  StackFact f = nvml_string<NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE>(
      nvml, "nvmlDeviceGetInforomVersion", api.nvmlDeviceGetInforomVersion != nullptr, [&](char* buf) {
        return api.nvmlDeviceGetInforomVersion(h, object, buf, NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE);
      });
  if (!f.known()) f.reason = fmt::format("{} ({})", f.reason, name);
  return f;
}

}  // namespace

std::vector<GpuFirmware> read_gpu_firmware(const NvmlSession& nvml, const std::vector<GpuInfo>& gpus) {
  std::vector<GpuFirmware> out;
  const std::vector<NvmlDeviceRef> devices =
      nvml.ok() ? list_nvml_devices(nvml) : std::vector<NvmlDeviceRef>{};
  for (const auto& g : gpus) {
    GpuFirmware f;
    f.gpu = g.index;
    f.uuid = g.uuid;
    const NvmlDeviceRef* d = nvml.ok() ? match_nvml_device(devices, g.uuid, g.pci_bus_id) : nullptr;
    if (!d) {
      const std::string why =
          nvml.ok() ? "NVML lists no GPU with this UUID or bus id" : "NVML: " + nvml.reason();
      for_each_gpu_firmware_fact(f, [&](const char*, StackFact& x) { x = StackFact::unread(why); });
      out.push_back(std::move(f));
      continue;
    }
    const auto& api = nvml.api();
    nvmlDevice_t h = d->handle;
    f.inforom_image = nvml_string<NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE>(
        nvml, "nvmlDeviceGetInforomImageVersion", api.nvmlDeviceGetInforomImageVersion != nullptr,
        [&](char* buf) {
          return api.nvmlDeviceGetInforomImageVersion(h, buf, NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE);
        });
    f.inforom_oem = inforom_object(nvml, h, NVML_INFOROM_OEM, "OEM");
    f.inforom_ecc = inforom_object(nvml, h, NVML_INFOROM_ECC, "ECC");
    f.inforom_power = inforom_object(nvml, h, NVML_INFOROM_POWER, "power");
    // nvml.h: NVML_ERROR_NOT_SUPPORTED "if GSP firmware is not enabled for GPU" — a fact about
    // the GPU (pre-Turing, or the driver runs without GSP), not an unread value.
    if (api.nvmlDeviceGetGspFirmwareVersion) {
      char buf[NVML_GSP_FIRMWARE_VERSION_BUF_SIZE] = {};
      const nvmlReturn_t st = api.nvmlDeviceGetGspFirmwareVersion(h, buf);
      f.gsp_firmware =
          st == NVML_SUCCESS ? StackFact::read(buf)
          : st == NVML_ERROR_NOT_SUPPORTED
              ? StackFact::read("not enabled")
              : StackFact::unread(fmt::format("nvmlDeviceGetGspFirmwareVersion: {}", nvml.error_text(st)));
    } else {
      f.gsp_firmware = StackFact::unread(nvml.missing("nvmlDeviceGetGspFirmwareVersion"));
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuqual
