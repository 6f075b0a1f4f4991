#include "device/burnin/burnin_gemm.hpp"

#include <cublasLt.h>

#include <stdexcept>
#include <vector>

#include "device/cublas/cublas_error.hpp"
#include "device/cublas/cublas_handle.hpp"
#include "device/cuda/cuda_error.hpp"
#include "device/cuda/device_buffer.hpp"
#include "kernels/burnin_kernels.cuh"
#include "kernels/gemm_kernels.cuh"

namespace gpuqual {
namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;

struct Types {
  cublasComputeType_t compute;
  cudaDataType_t scale, ab, cd;
};

Types burnin_types(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::fp32:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F};
    case GemmPrecision::tf32:
      return {CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F};
    case GemmPrecision::fp16:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F};
    case GemmPrecision::bf16:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF};
    case GemmPrecision::fp8:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E4M3, CUDA_R_16BF};
    default:
      break;
  }
  throw std::invalid_argument("burn-in GEMM supports fp32, tf32, fp16, bf16 and fp8, not " +
                              std::string(to_string(p)));
}

template <class T, cublasStatus_t (*Destroy)(T*)>
struct LtDeleter {
  void operator()(T* p) const { (void)Destroy(p); }
};

}  // namespace

struct BurninGemm::Impl {
  GemmPrecision precision;
  std::uint64_t n;
  std::uint64_t seed;
  cudaStream_t stream;
  Types types;
  DeviceBuffer a, b, d, workspace;
  CublasLtHandle lt;
  std::unique_ptr<cublasLtMatmulDescOpaque_t,
                  LtDeleter<cublasLtMatmulDescOpaque_t, cublasLtMatmulDescDestroy>>
      desc;
  std::unique_ptr<cublasLtMatrixLayoutOpaque_t,
                  LtDeleter<cublasLtMatrixLayoutOpaque_t, cublasLtMatrixLayoutDestroy>>
      la, lb, lc;
  cublasLtMatmulHeuristicResult_t heuristic{};
  float one = 1, zero = 0;
  int blocks = 0;
};

BurninGemm::BurninGemm(GemmPrecision precision, std::uint64_t n, std::uint64_t seed, cudaStream_t stream)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.precision = precision;
  m.n = n;
  m.seed = seed;
  m.stream = stream;
  m.types = burnin_types(precision);
  const std::uint64_t elements = n * n;
  m.a = DeviceBuffer(elements * gemm_input_bytes(precision));
  m.b = DeviceBuffer(elements * gemm_input_bytes(precision));
  m.d = DeviceBuffer(elements * gemm_output_bytes(precision));
  m.workspace = DeviceBuffer(kWorkspaceBytes);
  const auto kind = gemm_input_kind(precision);
  CUDA_CHECK(kernels::launch_gemm_fill(kind, m.a.get(), elements, seed, 0, stream));
  CUDA_CHECK(kernels::launch_gemm_fill(kind, m.b.get(), elements, seed, 1, stream));
  CUDA_CHECK(cudaMemsetAsync(m.d.get(), 0xFF, m.d.bytes(), stream));

  cublasLtMatmulDesc_t desc = nullptr;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, m.types.compute, m.types.scale));
  m.desc.reset(desc);
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  const auto make = [&](cudaDataType_t t) {
    cublasLtMatrixLayout_t l = nullptr;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, t, n, n, static_cast<std::int64_t>(n)));
    return l;
  };
  m.la.reset(make(m.types.ab));
  m.lb.reset(make(m.types.ab));
  m.lc.reset(make(m.types.cd));
  cublasLtMatmulPreference_t pref = nullptr;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const std::unique_ptr<cublasLtMatmulPreferenceOpaque_t,
                        LtDeleter<cublasLtMatmulPreferenceOpaque_t, cublasLtMatmulPreferenceDestroy>>
      pref_owner(pref);
  const std::uint64_t ws = kWorkspaceBytes;
  CUBLAS_CHECK(
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  // No split-K reduction: partial sums added by atomics in a varying order would make
  // repeated products differ in the last bits, and a bit-exact comparison meaningless.
  const std::uint32_t reduction = CUBLASLT_REDUCTION_SCHEME_NONE;
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                    &reduction, sizeof reduction));
  int found = 0;
  CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(m.lt.get(), desc, m.la.get(), m.lb.get(), m.lc.get(),
                                              m.lc.get(), pref, 1, &m.heuristic, &found));
  if (found == 0) {
    throw CublasError(CUBLAS_STATUS_NOT_SUPPORTED,
                      "cublasLtMatmulAlgoGetHeuristic (no algorithm without split-K)", __FILE__, __LINE__);
  }
  int dev = 0, sms = 1;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  m.blocks = sms * 4;
}

BurninGemm::~BurninGemm() = default;

GemmCheck BurninGemm::check_output(int samples) const {
  const Impl& m = *impl_;
  const auto points = gemm_sample_points(m.n, m.n, samples, m.seed);
  std::vector<std::uint64_t> indices;
  indices.reserve(points.size());
  for (const auto& p : points) indices.push_back(gemm_output_index(p, m.n));
  DeviceBuffer d_indices(indices.size() * sizeof(std::uint64_t));
  DeviceBuffer d_values(indices.size() * sizeof(double));
  CUDA_CHECK(
      cudaMemcpyAsync(d_indices.get(), indices.data(), d_indices.bytes(), cudaMemcpyHostToDevice, m.stream));
  CUDA_CHECK(kernels::launch_gemm_gather(
      gemm_output_kind(m.precision), m.d.get(), d_indices.as<std::uint64_t>(),
      static_cast<std::uint32_t>(indices.size()), d_values.as<double>(), m.stream));
  std::vector<double> got(indices.size());
  CUDA_CHECK(cudaMemcpyAsync(got.data(), d_values.get(), d_values.bytes(), cudaMemcpyDeviceToHost, m.stream));
  CUDA_CHECK(cudaStreamSynchronize(m.stream));
  std::vector<GemmReference> refs;
  refs.reserve(points.size());
  for (const auto& p : points) refs.push_back(gemm_reference(m.precision, m.seed, m.n, p));
  return check_gemm_samples(m.precision, m.n, points, got, refs);
}

void BurninGemm::enqueue_gemm() {
  Impl& m = *impl_;
  CUBLAS_CHECK(cublasLtMatmul(m.lt.get(), m.desc.get(), &m.one, m.a.get(), m.la.get(), m.b.get(), m.lb.get(),
                              &m.zero, m.d.get(), m.lc.get(), m.d.get(), m.lc.get(), &m.heuristic.algo,
                              m.workspace.get(), m.workspace.bytes(), m.stream));
}

void BurninGemm::enqueue_hash(unsigned long long* slot) {
  Impl& m = *impl_;
  CUDA_CHECK(kernels::launch_burnin_hash(m.d.as<std::uint64_t>(), m.d.bytes() / 8, slot,
                                         static_cast<unsigned>(m.blocks), m.stream));
}

double BurninGemm::flops_per_gemm() const { return gemm_flops(impl_->n, impl_->n, impl_->n); }
std::uint64_t BurninGemm::output_bytes() const { return impl_->d.bytes(); }
void* BurninGemm::output() const { return impl_->d.get(); }

}  // namespace gpuqual
