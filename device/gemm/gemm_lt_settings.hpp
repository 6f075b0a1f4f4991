#pragma once
// The cuBLASLt settings of the GEMM check, in one place so a CPU test sees what cuBLASLt is
// given (through the lazy loader's attribute seam, device/cublas/cublas_lazy.hpp):
//  - reduction scheme mask NONE | COMPUTE_TYPE for every checked GEMM: without it the heuristic
//    may pick a split-K that reduces in the output type (INPLACE / OUTPUT_TYPE), and FP16/BF16
//    partial sums rounded to 8-11 bits fall outside the FP32-accumulation tolerance
//    (gemm_tolerance), a false gemm.wrong_result at small sizes;
//  - FP8 with CUBLASLT_MATMUL_DESC_FAST_ACCUM, as published FP8 figures are measured; the FP8
//    tolerance already models Hopper's ~14-bit accumulation between promotions.
#include <cublasLt.h>

#include <cstdint>

#include "device/gemm/gemm_precision.hpp"

namespace gpuqual {

struct GemmLtSettings {
  bool fast_accum = false;
  std::uint32_t reduction_scheme_mask =
      CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  std::uint64_t max_workspace_bytes = 32u << 20;  // cuBLASLt's recommendation for Hopper
};

GemmLtSettings gemm_lt_settings(GemmPrecision p);

// Sets TRANSA = T, TRANSB = N and the settings' descriptor attributes. Throws CublasError.
void apply_gemm_desc_settings(cublasLtMatmulDesc_t desc, const GemmLtSettings& s);
// Sets the workspace limit and the reduction scheme mask on the heuristic's preference.
void apply_gemm_preference_settings(cublasLtMatmulPreference_t pref, const GemmLtSettings& s);

}  // namespace gpuqual
