// cuBLAS and cuBLASLt loaded on first use instead of at process start.
//
// Why: the dynamic loader spends ~65 ms mapping and relocating libcublas + libcublasLt (about
// 400k relocations; measured in docs/performance.md), and every gpuqual command paid it, even
// `compare`, `diff` and `gate`, which never touch a GPU and must answer a pipeline in < 50 ms.
// gpuqual therefore does not link cuBLAS. This file defines the few cuBLAS entry points gpuqual
// calls, with the headers' own signatures, and forwards each to the real library, dlopen'ed the
// first time any of them runs. Call sites stay plain cuBLAS code under CUBLAS_CHECK.
//
// A library that cannot be loaded (or lacks a symbol) turns every call into
// CUBLAS_STATUS_NOT_INITIALIZED, and cublasGetStatusString says what failed to load, so the
// check that needed cuBLAS reports `error` with the reason instead of the process not starting.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "device/cublas/cublas_lazy.hpp"

namespace gpuqual {
namespace {

struct CublasLibraries {
  void* cublas = nullptr;
  void* cublas_lt = nullptr;
  std::string problem;  // empty when both loaded
};

void* open_library(const std::string& soname, std::string& problem) {
  // The soname first (ld.so.conf, LD_LIBRARY_PATH, the binary's RUNPATH), then the toolkit
  // directory gpuqual was built against, where a plain toolkit install keeps it.
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    const std::string first_error = error != nullptr ? error : "dlopen failed";
    handle = dlopen((std::string(GPUQUAL_CUDA_LIBRARY_DIR) + "/" + soname).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr && problem.empty()) problem = soname + " not loadable: " + first_error;
  }
  return handle;
}

const CublasLibraries& libraries() {
  static const CublasLibraries libs = [] {
    CublasLibraries l;
    const std::string major = std::to_string(CUBLAS_VER_MAJOR);
    // cuBLASLt first: libcublas depends on it.
    l.cublas_lt = open_library("libcublasLt.so." + major, l.problem);
    l.cublas = open_library("libcublas.so." + major, l.problem);
    return l;
  }();
  return libs;
}

// The symbol `name` of the library, or nullptr (with the problem kept for the status text).
void* symbol(void* library, const char* name) {
  if (library == nullptr) return nullptr;
  return dlsym(library, name);
}

std::mutex missing_mutex;
std::string missing_symbol;  // the first symbol that could not be resolved

template <typename Fn>
Fn* resolve(bool lt, const char* name) {
  const CublasLibraries& libs = libraries();
  void* found = symbol(lt ? libs.cublas_lt : libs.cublas, name);
  if (found == nullptr && libs.problem.empty()) {
    std::lock_guard<std::mutex> lock(missing_mutex);
    if (missing_symbol.empty()) missing_symbol = name;
  }
  return reinterpret_cast<Fn*>(found);
}

std::mutex observer_mutex;
CublasLtAttributeObserver attribute_observer;

void observe(CublasLtAttributeCall::Target target, int attribute, const void* buf, std::size_t size) {
  std::lock_guard<std::mutex> lock(observer_mutex);
  if (!attribute_observer) return;
  const auto* bytes = static_cast<const std::uint8_t*>(buf);
  attribute_observer(
      {target, attribute, std::vector<std::uint8_t>(bytes, bytes + (buf != nullptr ? size : 0))});
}

}  // namespace

void set_cublaslt_attribute_observer(CublasLtAttributeObserver observer) {
  std::lock_guard<std::mutex> lock(observer_mutex);
  attribute_observer = std::move(observer);
}

void observe_cublaslt_attribute(bool preference, int attribute, const void* buf, std::size_t size) {
  observe(preference ? CublasLtAttributeCall::Target::preference : CublasLtAttributeCall::Target::matmul_desc,
          attribute, buf, size);
}

std::string cublas_load_problem() {
  const CublasLibraries& libs = libraries();
  if (!libs.problem.empty()) return libs.problem;
  std::lock_guard<std::mutex> lock(missing_mutex);
  return missing_symbol.empty() ? "" : "cuBLAS lacks the symbol " + missing_symbol + " (older library?)";
}

}  // namespace gpuqual

// One resolved pointer per entry point (thread-safe static init), then the call. A symbol that
// is not there answers CUBLAS_STATUS_NOT_INITIALIZED.
#define GPUQUAL_CUBLAS_FORWARD_AS(lt, type, name, ...)       \
  static auto* const fn = gpuqual::resolve<type>(lt, #name); \
  if (fn == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;   \
  return fn(__VA_ARGS__)
#define GPUQUAL_CUBLAS_FORWARD(lt, name, ...) \
  GPUQUAL_CUBLAS_FORWARD_AS(lt, decltype(::name), name, __VA_ARGS__)

// cublas_api.h overloads cublasGemmEx in C++ (an inline taking cublasDataType), so its C entry
// point's type is spelled out.
using CublasGemmExFn = cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                      const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                                      int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                                      cublasGemmAlgo_t);

extern "C" {

// --- cuBLAS (cublas_v2.h maps cublasCreate etc. to these _v2 names) ---------------------------
cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
  GPUQUAL_CUBLAS_FORWARD(false, cublasCreate_v2, handle);
}
cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
  GPUQUAL_CUBLAS_FORWARD(false, cublasDestroy_v2, handle);
}
cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  GPUQUAL_CUBLAS_FORWARD(false, cublasSetStream_v2, handle, stream);
}
cublasStatus_t CUBLASWINAPI cublasGetProperty(libraryPropertyType type, int* value) {
  GPUQUAL_CUBLAS_FORWARD(false, cublasGetProperty, type, value);
}
cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                         const void* A, cudaDataType Atype, int lda, const void* B,
                                         cudaDataType Btype, int ldb, const void* beta, void* C,
                                         cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                         cublasGemmAlgo_t algo) {
  GPUQUAL_CUBLAS_FORWARD_AS(false, CublasGemmExFn, cublasGemmEx, handle, transa, transb, m, n, k, alpha, A,
                            Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo);
}

// The status texts are what CUBLAS_CHECK prints: without the library, say why it is missing.
const char* CUBLASWINAPI cublasGetStatusName(cublasStatus_t status) {
  static auto* const fn = gpuqual::resolve<decltype(::cublasGetStatusName)>(false, "cublasGetStatusName");
  return fn != nullptr ? fn(status) : "CUBLAS_STATUS_NOT_INITIALIZED";
}
const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
  static auto* const fn = gpuqual::resolve<decltype(::cublasGetStatusString)>(false, "cublasGetStatusString");
  if (fn != nullptr) return fn(status);
  static const std::string why = gpuqual::cublas_load_problem();
  return why.empty() ? "cuBLAS could not be loaded" : why.c_str();
}

// --- cuBLASLt --------------------------------------------------------------------------------
cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t* handle) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtCreate, handle);
}
cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t handle) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtDestroy, handle);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                           const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
                                           const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta,
                                           const void* C, cublasLtMatrixLayout_t Cdesc, void* D,
                                           cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t* algo,
                                           void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmul, handle, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D,
                         Ddesc, algo, workspace, workspace_bytes, stream);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requested, cublasLtMatmulHeuristicResult_t results[],
    int* returned) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmulAlgoGetHeuristic, handle, desc, Adesc, Bdesc, Cdesc, Ddesc,
                         preference, requested, results, returned);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                                     cudaDataType_t scale) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmulDescCreate, desc, compute, scale);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmulDescDestroy, desc);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                           cublasLtMatmulDescAttributes_t attr,
                                                           const void* buf, size_t size) {
  gpuqual::observe_cublaslt_attribute(false, static_cast<int>(attr), buf, size);
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmulDescSetAttribute, desc, attr, buf, size);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmulPreferenceCreate, pref);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmulPreferenceDestroy, pref);
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                                 cublasLtMatmulPreferenceAttributes_t attr,
                                                                 const void* buf, size_t size) {
  gpuqual::observe_cublaslt_attribute(true, static_cast<int>(attr), buf, size);
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatmulPreferenceSetAttribute, pref, attr, buf, size);
}
cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type,
                                                       uint64_t rows, uint64_t cols, int64_t ld) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatrixLayoutCreate, layout, type, rows, cols, ld);
}
cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  GPUQUAL_CUBLAS_FORWARD(true, cublasLtMatrixLayoutDestroy, layout);
}

}  // extern "C"
