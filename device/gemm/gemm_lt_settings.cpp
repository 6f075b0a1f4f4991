#include "device/gemm/gemm_lt_settings.hpp"

#include "device/cublas/cublas_error.hpp"

namespace gpuqual {

GemmLtSettings gemm_lt_settings(GemmPrecision p) {
  GemmLtSettings s;
  s.fast_accum = p == GemmPrecision::fp8;
  return s;
}

void apply_gemm_desc_settings(cublasLtMatmulDesc_t desc, const GemmLtSettings& s) {
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (s.fast_accum) {
    const std::int8_t on = 1;  // int8_t, per cublasLt.h
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &on, sizeof on));
  }
}

void apply_gemm_preference_settings(cublasLtMatmulPreference_t pref, const GemmLtSettings& s) {
  const std::uint64_t ws = s.max_workspace_bytes;
  CUBLAS_CHECK(
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  const std::uint32_t mask = s.reduction_scheme_mask;
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask,
                                                    sizeof mask));
}

}  // namespace gpuqual
