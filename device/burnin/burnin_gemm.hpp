#pragma once
// The burn-in's GEMM on the current device: seeded square inputs, one cuBLASLt algorithm chosen
// once (no split-K reduction with atomics, so repeated products are bit-identical), and the
// output's fingerprint (kernels/burnin_hash.cuh) after each product. Throws CudaError or
// CublasError (no algorithm for the precision on this GPU).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "device/gemm/gemm_precision.hpp"
#include "device/gemm/gemm_verify.hpp"

namespace gpuqual {

class BurninGemm {
 public:
  BurninGemm(GemmPrecision precision, std::uint64_t n, std::uint64_t seed, cudaStream_t stream);
  ~BurninGemm();
  BurninGemm(const BurninGemm&) = delete;
  BurninGemm& operator=(const BurninGemm&) = delete;

  void enqueue_gemm();
  // Enqueues the output's fingerprint into `slot` (device memory; the caller zeroes it).
  void enqueue_hash(unsigned long long* slot);
  // The current output checked on `samples` seeded elements against the host's double-precision
  // reference (device/gemm/gemm_verify.hpp, as the gemm check does). Synchronizes the stream.
  GemmCheck check_output(int samples) const;
  double flops_per_gemm() const;
  std::uint64_t output_bytes() const;
  void* output() const;  // for tests that damage the output

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuqual
