#include "device/cuda/cuda_gpus.hpp"

#include <cstdio>
#include <cstdlib>

#include "device/cuda/cuda_error.hpp"

namespace gpuqual {

std::string format_gpu_uuid(const unsigned char (&b)[16]) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return buf;
}

CudaGpuScan scan_cuda_gpus() {
  CudaGpuScan scan;
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    scan.error = "cudaGetDeviceCount: " + CudaError::describe(rc);
    return scan;
  }
  if (count == 0) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    scan.error = "the CUDA runtime sees no GPU";
    if (visible) scan.error += std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")";
    return scan;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    rc = cudaGetDeviceProperties(&prop, i);
    if (rc != cudaSuccess) {
      scan.error = "cudaGetDeviceProperties(" + std::to_string(i) + "): " + CudaError::describe(rc);
      continue;
    }
    GpuInfo g;
    g.index = i;
    g.name = prop.name;
    unsigned char uuid[16];
    bool zero = true;
    for (int k = 0; k < 16; ++k) {
      uuid[k] = static_cast<unsigned char>(prop.uuid.bytes[k]);
      zero = zero && uuid[k] == 0;
    }
    // All zeros is no UUID (two such GPUs would read as one card): NVML's is taken instead.
    if (!zero) g.uuid = format_gpu_uuid(uuid);
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) g.pci_bus_id = bus;
    g.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    g.sm_count = prop.multiProcessorCount;
    g.memory_bytes = prop.totalGlobalMem;
    scan.gpus.push_back(std::move(g));
  }
  return scan;
}

}  // namespace gpuqual
