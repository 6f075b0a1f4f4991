#pragma once
// Floors for the GPU tests, per hardware class: a figure under its floor is a real shortfall of
// that part (a slow link, a throttled or broken GPU), not only a unit error. Classes without a
// row fall back to the tests' unit-error bounds. No CUDA here: the table is tested on the CPU.
//
// H200 SXM 141 GB (sources: /work/shared/reference/reference-numbers.md, platform-support.md):
//   BF16 8192^3 GEMM >= 600 TFLOP/s: measured elsewhere 769-798 through cuBLAS (PyTorch, random
//     data); datasheet 989.5 dense (platform-support.md, S15). 600 is ~0.78x the measured figure.
//   HBM copy >= 3500 GB/s (bytes read + written): PyTorch device copy ~4.3 TB/s; datasheet
//     4.8 TB/s. 3500 is ~0.81x the measured figure, above DCGM's 0.75x-of-3.11 TB/s gate.
//   PCIe H2D and D2H >= 40 GB/s per direction: Gen5 x16 is ~64 GB/s per direction (datasheet
//     128 GB/s bidirectional, platform-support.md); H100 measured 35 (SM-copy H2D) to 55 GB/s
//     (copy-engine H2D, which is what gpuqual's pinned cudaMemcpyAsync uses). A Gen4 or x8
//     link tops out near 26-32 GB/s, under the floor. Provisional: the lent machine the first
//     window runs on is a microVM with the GPU passed through, where PCIe copies may land near
//     the floor for a platform reason (IOMMU, virtualised root complex). Until a window has
//     measured it there, a figure under it is recorded and marked, not failed.
#include <optional>
#include <string>
#include <string_view>

namespace gpuqual {

struct ClassFloors {
  std::string_view slug;
  double gemm_bf16_tflops = 0;  // at the canonical 8192^3
  double hbm_copy_gbps = 0;
  double pcie_gbps = 0;               // each of h2d, d2h
  std::string_view pcie_provisional;  // why the PCIe floor is not yet firm ("" when it is)
};

// How a figure stands against a floor: under a provisional one it is recorded, not failed.
enum class FloorCheck { meets, below, below_provisional };
FloorCheck check_floor(double value, double floor, std::string_view provisional);

// The floors of hardware class `slug` ("h200-sxm-141gb"), or nullopt.
std::optional<ClassFloors> class_floors(std::string_view slug);

// The class slug of a GPU from its CUDA name and total memory, as the inventory derives it.
std::string gpu_class_slug(const std::string& cuda_name, std::size_t total_memory_bytes);

}  // namespace gpuqual
