#pragma once
// The GEMM check's precisions and their pure rules: names, metric names and units, FLOP
// accounting, which compute capabilities have them, and how close an answer must be.
// No CUDA here, so every rule is tested on the CPU.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/gemm_input.cuh"

namespace gpuqual {

enum class GemmPrecision { fp64, fp32, tf32, fp16, bf16, fp8, int8 };

std::string_view to_string(GemmPrecision p);  // "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"
// Accepts the names above and "fp8_e4m3"/"e4m3" for fp8.
std::optional<GemmPrecision> parse_gemm_precision(std::string_view text);
std::vector<GemmPrecision> all_gemm_precisions();

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};
// "9.0" -> {9, 0}; nullopt when malformed.
std::optional<ComputeCapability> parse_compute_capability(std::string_view text);

// Why precision `p` cannot run on a GPU of compute capability `cc`, or nullopt when it can.
// TF32 and BF16 need Ampere (8.0); FP8 e4m3 needs Ada/Hopper (8.9); INT8 tensor cores 7.5.
std::optional<std::string> gemm_skip_reason(GemmPrecision p, ComputeCapability cc);

// 2*M*N*K: one multiply and one add per term of every output element.
double gemm_flops(std::uint64_t m, std::uint64_t n, std::uint64_t k);

// "gemm.bf16.tflops" for the canonical 8192 cube, "gemm.bf16.n4096.tflops" for other sizes;
// INT8 counts integer operations: "gemm.int8.tops" in TOP/s.
inline constexpr std::uint64_t kGemmCanonicalSize = 8192;
std::string gemm_metric_name(GemmPrecision p, std::uint64_t size);
std::string gemm_metric_unit(GemmPrecision p);

kernels::GemmInputKind gemm_input_kind(GemmPrecision p);
kernels::GemmOutputKind gemm_output_kind(GemmPrecision p);
std::size_t gemm_input_bytes(GemmPrecision p);   // bytes per input element
std::size_t gemm_output_bytes(GemmPrecision p);  // bytes per output element

// Per-element tolerance for a K-long dot product (see kernels::gemm_element_ok).
kernels::GemmTolerance gemm_tolerance(GemmPrecision p, std::uint64_t k);
// Bound on the relative RMS error over all sampled elements, sqrt(sum err^2 / sum ref^2): the
// aggregate catches an output that is wrong everywhere by less than the per-element bound.
double gemm_rms_tolerance(GemmPrecision p);

}  // namespace gpuqual
