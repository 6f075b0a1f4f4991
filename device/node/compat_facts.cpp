#include "device/node/compat_facts.hpp"

#include <cuda_runtime_api.h>

#include "device/node/library_versions.hpp"
#include "device/nvml/nvml_devices.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

std::string libnvidia_container_brand(int nvml_brand) {
  switch (nvml_brand) {
    case NVML_BRAND_QUADRO:
      return "Quadro";
    case NVML_BRAND_TESLA:
      return "Tesla";
    case NVML_BRAND_NVS:
      return "NVS";
    case NVML_BRAND_GRID:
      return "GRID";
    case NVML_BRAND_GEFORCE:
      return "GeForce";
    case NVML_BRAND_TITAN:
      return "TITAN";
    default:
      return "Unknown";
  }
}

CompatFacts collect_compat_facts() {
  CompatFacts f;
  NvmlSession nvml = NvmlSession::open();
  const StackVersions v = read_stack_versions(nvml);
  f.host.driver_text = v.driver_version;
  f.host.driver = parse_driver_version(v.driver_version);
  int encoded = 0;
  if (cudaDriverGetVersion(&encoded) == cudaSuccess) f.host.cuda = DottedVersion::from_cuda_int(encoded);
  if (cudaRuntimeGetVersion(&encoded) == cudaSuccess) f.runtime = DottedVersion::from_cuda_int(encoded);
  if (!nvml.ok()) {
    f.nvml_note = nvml.reason();
    return f;
  }
  std::vector<std::string> problems;
  for (const auto& d : list_nvml_devices(nvml, &problems)) {
    RequireFacts g;
    g.driver = f.host.driver;
    g.cuda = f.host.cuda;
    if (nvml.api().nvmlDeviceGetBrand) {
      nvmlBrandType_t brand{};
      if (nvml.api().nvmlDeviceGetBrand(d.handle, &brand) == NVML_SUCCESS)
        g.brand = libnvidia_container_brand(brand);
    }
    if (nvml.api().nvmlDeviceGetCudaComputeCapability) {
      int major = 0, minor = 0;
      if (nvml.api().nvmlDeviceGetCudaComputeCapability(d.handle, &major, &minor) == NVML_SUCCESS) {
        g.arch = DottedVersion{{major, minor}};
      }
    }
    f.gpus.push_back(g);
  }
  for (const auto& p : problems) f.nvml_note += (f.nvml_note.empty() ? "" : "; ") + p;
  return f;
}

}  // namespace gpuqual
