#pragma once
// cuBLAS and cuBLASLt are dlopen'ed on first use (device/cublas/cublas_lazy.cpp explains why): gpuqual
// never links them, so commands that do not touch a GPU start in milliseconds.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpuqual {

// Why cuBLAS cannot be used, or "" when it loads (loading it now if no cuBLAS call has yet).
std::string cublas_load_problem();

// Test seam: one attribute gpuqual set on a cuBLASLt matmul descriptor or preference, as the
// bytes passed (e.g. CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK and its uint32_t).
struct CublasLtAttributeCall {
  enum class Target { matmul_desc, preference };
  Target target = Target::matmul_desc;
  int attribute = 0;
  std::vector<std::uint8_t> value;
};
using CublasLtAttributeObserver = std::function<void(const CublasLtAttributeCall&)>;
// Every cublasLtMatmulDescSetAttribute / cublasLtMatmulPreferenceSetAttribute call is shown to
// `observer` (on the calling thread) before it is forwarded; an empty observer removes it.
void set_cublaslt_attribute_observer(CublasLtAttributeObserver observer);

}  // namespace gpuqual
