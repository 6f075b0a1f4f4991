// What the GEMM check passes to cuBLASLt (device/gemm/gemm_lt_settings.hpp), seen through the lazy
// loader's attribute seam on real cuBLASLt descriptors (host-only state: no GPU needed).
#include <cublasLt.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "device/cublas/cublas_lazy.hpp"
#include "device/gemm/gemm_lt_settings.hpp"

namespace gpuqual {
namespace {

using Target = CublasLtAttributeCall::Target;

// The calls the GEMM check makes for precision `p`, captured on their way to cuBLASLt.
std::vector<CublasLtAttributeCall> captured_calls(GemmPrecision p) {
  std::vector<CublasLtAttributeCall> calls;
  set_cublaslt_attribute_observer([&](const CublasLtAttributeCall& c) { calls.push_back(c); });
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  EXPECT_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
  const GemmLtSettings s = gemm_lt_settings(p);
  apply_gemm_desc_settings(desc, s);  // throws if cuBLASLt rejects a value
  apply_gemm_preference_settings(pref, s);
  set_cublaslt_attribute_observer({});
  (void)cublasLtMatmulPreferenceDestroy(pref);
  (void)cublasLtMatmulDescDestroy(desc);
  return calls;
}

template <class T>
std::optional<T> value_of(const std::vector<CublasLtAttributeCall>& calls, Target target, int attribute) {
  for (const auto& c : calls) {
    if (c.target != target || c.attribute != attribute) continue;
    EXPECT_EQ(c.value.size(), sizeof(T)) << "attribute " << attribute << " passed with the wrong size";
    T v{};
    std::memcpy(&v, c.value.data(), std::min(sizeof(T), c.value.size()));
    return v;
  }
  return std::nullopt;
}

TEST(GemmLtSettings, CheckedGemmsReduceOnlyInTheComputeType) {
  for (GemmPrecision p : all_gemm_precisions()) {
    const auto calls = captured_calls(p);
    const auto mask =
        value_of<std::uint32_t>(calls, Target::preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK);
    ASSERT_TRUE(mask.has_value()) << to_string(p) << ": the reduction scheme mask is left at its default";
    EXPECT_EQ(*mask, static_cast<std::uint32_t>(CUBLASLT_REDUCTION_SCHEME_NONE |
                                                CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE))
        << to_string(p);
    EXPECT_EQ(*mask & CUBLASLT_REDUCTION_SCHEME_INPLACE, 0u) << to_string(p);
    EXPECT_EQ(*mask & CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE, 0u) << to_string(p);
    const auto ws =
        value_of<std::uint64_t>(calls, Target::preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
    ASSERT_TRUE(ws.has_value());
    EXPECT_EQ(*ws, 32u << 20);
  }
}

TEST(GemmLtSettings, Fp8UsesFastAccumulationAndNothingElseDoes) {
  const auto fp8 = captured_calls(GemmPrecision::fp8);
  const auto fast = value_of<std::int8_t>(fp8, Target::matmul_desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM);
  ASSERT_TRUE(fast.has_value()) << "FP8 throughput GEMM without CUBLASLT_MATMUL_DESC_FAST_ACCUM";
  EXPECT_EQ(*fast, 1);
  for (GemmPrecision p :
       {GemmPrecision::bf16, GemmPrecision::fp16, GemmPrecision::tf32, GemmPrecision::int8}) {
    EXPECT_FALSE(
        value_of<std::int8_t>(captured_calls(p), Target::matmul_desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM))
        << to_string(p);
  }
}

TEST(GemmLtSettings, LayoutIsTransposedANormalB) {
  const auto calls = captured_calls(GemmPrecision::bf16);
  EXPECT_EQ(value_of<cublasOperation_t>(calls, Target::matmul_desc, CUBLASLT_MATMUL_DESC_TRANSA),
            CUBLAS_OP_T);
  EXPECT_EQ(value_of<cublasOperation_t>(calls, Target::matmul_desc, CUBLASLT_MATMUL_DESC_TRANSB),
            CUBLAS_OP_N);
}

}  // namespace
}  // namespace gpuqual
