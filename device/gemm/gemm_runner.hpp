#pragma once
// One GEMM measurement on one GPU: seeded inputs generated on the GPU, cuBLASLt (cuBLAS's
// cublasGemmEx where cuBLASLt offers no algorithm), timed with CUDA events by the measurement
// engine, then a sample of the output checked against the host reference (gemm_verify.hpp).
#include <cstdint>
#include <functional>
#include <string>

#include "device/gemm/gemm_verify.hpp"
#include "device/measure/measure.hpp"

namespace gpuqual {

struct GemmRunConfig {
  GemmPrecision precision = GemmPrecision::bf16;
  std::uint64_t size = kGemmCanonicalSize;  // M = N = K
  std::uint64_t seed = 1;
  int verify_samples = 256;
  MeasureConfig measure;
};

struct GemmRunResult {
  MeasureResult measure;
  GemmCheck check;
  double flops_per_op = 0;
  std::string library;  // "cublasLt" or "cublas"
};

// Runs on the current device (the caller's thread made it current). Throws CudaError/CublasError.
GemmRunResult run_gemm(const GemmRunConfig& config, const MeasureHooks& hooks);

// For tests: the same, but lets the caller damage the output before it is checked (a planted
// corruption must be caught). `corrupt(d_ptr, m, n)` runs after timing, before verification.
using GemmCorruptor = std::function<void(void* d, std::uint64_t m, std::uint64_t n)>;
GemmRunResult run_gemm(const GemmRunConfig& config, const MeasureHooks& hooks, const GemmCorruptor& corrupt);

}  // namespace gpuqual
