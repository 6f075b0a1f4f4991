#include "device/gemm/gemm_runner.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "device/cublas/cublas_handle.hpp"
#include "device/cuda/device_buffer.hpp"
#include "device/cuda/stream.hpp"
#include "device/gemm/gemm_lt_settings.hpp"
#include "device/measure/measure_timers.hpp"
#include "kernels/gemm_kernels.cuh"

namespace gpuqual {

namespace {

struct GemmTypes {
  cublasComputeType_t compute;
  cudaDataType_t scale, ab, cd;
};

GemmTypes gemm_types(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::fp64:
      return {CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F};
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
    case GemmPrecision::int8:
      return {CUBLAS_COMPUTE_32I, CUDA_R_32I, CUDA_R_8I, CUDA_R_32I};
  }
  throw std::invalid_argument("unknown GEMM precision");
}

// alpha = 1, beta = 0 in the scale type (double, float or int32), as host memory.
struct Scalars {
  double d1 = 1, d0 = 0;
  float f1 = 1, f0 = 0;
  int i1 = 1, i0 = 0;
  const void* one(cudaDataType_t t) const {
    return t == CUDA_R_64F ? (const void*)&d1 : t == CUDA_R_32I ? (const void*)&i1 : &f1;
  }
  const void* zero(cudaDataType_t t) const {
    return t == CUDA_R_64F ? (const void*)&d0 : t == CUDA_R_32I ? (const void*)&i0 : &f0;
  }
};

// Owners of the cuBLASLt descriptors (plain C handles with their own destroy functions).
struct DescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* d) const { (void)cublasLtMatmulDescDestroy(d); }
  void operator()(cublasLtMatrixLayoutOpaque_t* l) const { (void)cublasLtMatrixLayoutDestroy(l); }
  void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { (void)cublasLtMatmulPreferenceDestroy(p); }
};
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, DescDeleter>;
using MatrixLayout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, DescDeleter>;
using MatmulPreference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, DescDeleter>;

MatrixLayout make_layout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld) {
  cublasLtMatrixLayout_t l = nullptr;
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld));
  return MatrixLayout(l);
}

// The prepared product: cuBLASLt when it has an algorithm, else cublasGemmEx.
class GemmOp {
 public:
  GemmOp(GemmPrecision p, std::uint64_t n, const void* a, const void* b, void* d, cudaStream_t stream)
      : types_(gemm_types(p)),
        settings_(gemm_lt_settings(p)),
        n_(n),
        a_(a),
        b_(b),
        d_(d),
        stream_(stream),
        workspace_(settings_.max_workspace_bytes) {
    cublasLtMatmulDesc_t desc = nullptr;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, types_.compute, types_.scale));
    desc_.reset(desc);
    apply_gemm_desc_settings(desc, settings_);
    const auto ld = static_cast<std::int64_t>(n);
    la_ = make_layout(types_.ab, n, n, ld);  // K x M, used transposed
    lb_ = make_layout(types_.ab, n, n, ld);  // K x N
    lc_ = make_layout(types_.cd, n, n, ld);  // M x N
    ld_ = make_layout(types_.cd, n, n, ld);
    cublasLtMatmulPreference_t pref = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    pref_.reset(pref);
    apply_gemm_preference_settings(pref, settings_);
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt_.get(), desc, la_.get(), lb_.get(), lc_.get(),
                                                             ld_.get(), pref, 1, &heuristic_, &found);
    if (st == CUBLAS_STATUS_SUCCESS && found > 0) {
      library_ = "cublasLt";
      return;
    }
    if (p == GemmPrecision::fp8) {
      // cublasGemmEx has no FP8; there is nothing to fall back to.
      CUBLAS_CHECK(st);
      throw CublasError(CUBLAS_STATUS_NOT_SUPPORTED,
                        "cublasLtMatmulAlgoGetHeuristic (FP8 e4m3, no algorithm)", __FILE__, __LINE__);
    }
    blas_ = std::make_unique<CublasHandle>();
    blas_->set_stream(stream);
    library_ = "cublas";
  }

  const std::string& library() const { return library_; }

  void enqueue() {
    if (!blas_) {
      CUBLAS_CHECK(cublasLtMatmul(lt_.get(), desc_.get(), scalars_.one(types_.scale), a_, la_.get(), b_,
                                  lb_.get(), scalars_.zero(types_.scale), d_, lc_.get(), d_, ld_.get(),
                                  &heuristic_.algo, workspace_.get(), workspace_.bytes(), stream_));
      return;
    }
    const int n = static_cast<int>(n_);
    CUBLAS_CHECK(cublasGemmEx(blas_->get(), CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, scalars_.one(types_.scale), a_,
                              types_.ab, n, b_, types_.ab, n, scalars_.zero(types_.scale), d_, types_.cd, n,
                              types_.compute, CUBLAS_GEMM_DEFAULT));
  }

 private:
  GemmTypes types_;
  GemmLtSettings settings_;
  std::uint64_t n_;
  const void* a_;
  const void* b_;
  void* d_;
  cudaStream_t stream_;
  CublasLtHandle lt_;
  DeviceBuffer workspace_;
  MatmulDesc desc_;
  MatrixLayout la_, lb_, lc_, ld_;
  MatmulPreference pref_;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  std::unique_ptr<CublasHandle> blas_;
  std::string library_;
  Scalars scalars_;
};

GemmCheck verify(const GemmRunConfig& c, const void* d, cudaStream_t stream) {
  const auto points = gemm_sample_points(c.size, c.size, c.verify_samples, c.seed);
  std::vector<std::uint64_t> indices;
  indices.reserve(points.size());
  for (const auto& p : points) indices.push_back(gemm_output_index(p, c.size));
  DeviceBuffer d_indices(indices.size() * sizeof(std::uint64_t));
  DeviceBuffer d_values(indices.size() * sizeof(double));
  CUDA_CHECK(
      cudaMemcpyAsync(d_indices.get(), indices.data(), d_indices.bytes(), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(kernels::launch_gemm_gather(gemm_output_kind(c.precision), d, d_indices.as<std::uint64_t>(),
                                         static_cast<std::uint32_t>(indices.size()), d_values.as<double>(),
                                         stream));
  std::vector<double> got(indices.size());
  CUDA_CHECK(cudaMemcpyAsync(got.data(), d_values.get(), d_values.bytes(), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<GemmReference> refs;
  refs.reserve(points.size());
  for (const auto& p : points) refs.push_back(gemm_reference(c.precision, c.seed, c.size, p));
  return check_gemm_samples(c.precision, c.size, points, got, refs);
}

}  // namespace

GemmRunResult run_gemm(const GemmRunConfig& config, const MeasureHooks& hooks) {
  return run_gemm(config, hooks, nullptr);
}

GemmRunResult run_gemm(const GemmRunConfig& config, const MeasureHooks& hooks, const GemmCorruptor& corrupt) {
  const std::uint64_t n = config.size;
  const std::uint64_t elements = n * n;
  Stream stream;
  DeviceBuffer a(elements * gemm_input_bytes(config.precision));
  DeviceBuffer b(elements * gemm_input_bytes(config.precision));
  DeviceBuffer d(elements * gemm_output_bytes(config.precision));
  const auto kind = gemm_input_kind(config.precision);
  CUDA_CHECK(kernels::launch_gemm_fill(kind, a.get(), elements, config.seed, 0, stream));
  CUDA_CHECK(kernels::launch_gemm_fill(kind, b.get(), elements, config.seed, 1, stream));
  // D starts as a pattern no correct product yields (all bytes 0xFF: NaN or -1), so an
  // operation that silently did nothing is caught by the verification.
  CUDA_CHECK(cudaMemsetAsync(d.get(), 0xFF, d.bytes(), stream));

  GemmOp op(config.precision, n, a.get(), b.get(), d.get(), stream);
  CudaEventTimer timer(stream, [&] { op.enqueue(); });

  GemmRunResult result;
  result.library = op.library();
  result.flops_per_op = gemm_flops(n, n, n);
  result.measure = measure(timer, config.measure, hooks);
  stream.synchronize();
  if (corrupt) {
    corrupt(d.get(), n, n);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  result.check = verify(config, d.get(), stream);
  return result;
}

}  // namespace gpuqual
