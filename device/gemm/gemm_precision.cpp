#include "device/gemm/gemm_precision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "core/record/skip_reason.hpp"

namespace gpuqual {

std::string_view to_string(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::fp64:
      return "fp64";
    case GemmPrecision::fp32:
      return "fp32";
    case GemmPrecision::tf32:
      return "tf32";
    case GemmPrecision::fp16:
      return "fp16";
    case GemmPrecision::bf16:
      return "bf16";
    case GemmPrecision::fp8:
      return "fp8";
    case GemmPrecision::int8:
      return "int8";
  }
  return "?";
}

std::optional<GemmPrecision> parse_gemm_precision(std::string_view text) {
  for (GemmPrecision p : all_gemm_precisions()) {
    if (text == to_string(p)) return p;
  }
  if (text == "fp8_e4m3" || text == "e4m3") return GemmPrecision::fp8;
  return std::nullopt;
}

std::vector<GemmPrecision> all_gemm_precisions() {
  return {GemmPrecision::fp64, GemmPrecision::fp32, GemmPrecision::tf32, GemmPrecision::fp16,
          GemmPrecision::bf16, GemmPrecision::fp8,  GemmPrecision::int8};
}

std::optional<ComputeCapability> parse_compute_capability(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= text.size()) return std::nullopt;
  ComputeCapability cc;
  const char* end = text.data() + text.size();
  auto r1 = std::from_chars(text.data(), text.data() + dot, cc.major);
  auto r2 = std::from_chars(text.data() + dot + 1, end, cc.minor);
  if (r1.ec != std::errc() || r1.ptr != text.data() + dot || r2.ec != std::errc() || r2.ptr != end)
    return std::nullopt;
  if (cc.major < 0 || cc.minor < 0) return std::nullopt;
  return cc;
}

std::optional<std::string> gemm_skip_reason(GemmPrecision p, ComputeCapability cc) {
  const char* what = "";
  switch (p) {
    case GemmPrecision::fp64:
    case GemmPrecision::fp32:
      return std::nullopt;
    case GemmPrecision::fp16:
      what = "FP16 tensor cores";
      break;
    case GemmPrecision::int8:
      what = "INT8 tensor cores (IMMA)";
      break;
    case GemmPrecision::tf32:
      what = "TF32 tensor cores";
      break;
    case GemmPrecision::bf16:
      what = "BF16 tensor cores";
      break;
    case GemmPrecision::fp8:
      what = "FP8 (e4m3) tensor cores";
      break;
  }
  // One table for the check and for judging its precision_unsupported skips (core/record/skip_reason.hpp).
  const auto [major, minor] = gemm_precision_need(to_string(p)).value_or(std::pair{0, 0});
  if (std::pair{cc.major, cc.minor} >= std::pair{major, minor}) return std::nullopt;
  return fmt::format("{} need compute capability {}.{} or newer; this GPU is {}.{}", what, major, minor,
                     cc.major, cc.minor);
}

double gemm_flops(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

std::string gemm_metric_name(GemmPrecision p, std::uint64_t size) {
  // fmt::format, not `"n" + std::to_string(size)`: GCC 12 at -O3 reports a false -Wrestrict
  // inside std::operator+(const char*, std::string&&).
  const std::string sized = size != kGemmCanonicalSize ? fmt::format("n{}.", size) : "";
  return fmt::format("gemm.{}.{}{}", to_string(p), sized, p == GemmPrecision::int8 ? "tops" : "tflops");
}

std::string gemm_metric_unit(GemmPrecision p) { return p == GemmPrecision::int8 ? "TOP/s" : "TFLOP/s"; }

kernels::GemmInputKind gemm_input_kind(GemmPrecision p) {
  using K = kernels::GemmInputKind;
  switch (p) {
    case GemmPrecision::fp64:
      return K::f64;
    case GemmPrecision::fp32:
      return K::f32;
    case GemmPrecision::tf32:
      return K::tf32;
    case GemmPrecision::fp16:
      return K::f16;
    case GemmPrecision::bf16:
      return K::bf16;
    case GemmPrecision::fp8:
      return K::e4m3;
    case GemmPrecision::int8:
      return K::i8;
  }
  return K::f32;
}

kernels::GemmOutputKind gemm_output_kind(GemmPrecision p) {
  using K = kernels::GemmOutputKind;
  switch (p) {
    case GemmPrecision::fp64:
      return K::f64;
    case GemmPrecision::fp32:
    case GemmPrecision::tf32:
      return K::f32;
    case GemmPrecision::fp16:
      return K::f16;
    case GemmPrecision::bf16:
    case GemmPrecision::fp8:
      return K::bf16;  // FP8 GEMMs write BF16, as in training stacks
    case GemmPrecision::int8:
      return K::i32;
  }
  return K::f32;
}

std::size_t gemm_input_bytes(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::fp64:
      return 8;
    case GemmPrecision::fp32:
    case GemmPrecision::tf32:
      return 4;
    case GemmPrecision::fp16:
    case GemmPrecision::bf16:
      return 2;
    case GemmPrecision::fp8:
    case GemmPrecision::int8:
      return 1;
  }
  return 4;
}

std::size_t gemm_output_bytes(GemmPrecision p) {
  switch (gemm_output_kind(p)) {
    case kernels::GemmOutputKind::f64:
      return 8;
    case kernels::GemmOutputKind::f32:
    case kernels::GemmOutputKind::i32:
      return 4;
    case kernels::GemmOutputKind::f16:
    case kernels::GemmOutputKind::bf16:
      return 2;
  }
  return 4;
}

kernels::GemmTolerance gemm_tolerance(GemmPrecision p, std::uint64_t k) {
  // Rounding errors of a K-term sum grow like sqrt(K) when their signs are random and like K at
  // worst; 2*sqrt(K) unit roundoffs of sum |a_k b_k| (at least 16) sits far above the typical
  // error and far below what a wrong tile, a flipped bit or a zeroed output produce.
  const double growth = std::max(16.0, 2.0 * std::sqrt(static_cast<double>(k)));
  const double u64 = std::ldexp(1.0, -53), u32 = std::ldexp(1.0, -24);
  const double u_out = kernels::gemm_output_unit_roundoff(gemm_output_kind(p));
  switch (p) {
    case GemmPrecision::fp64:
      return {u_out, u64 * growth};
    case GemmPrecision::fp32:
    case GemmPrecision::tf32:  // inputs carry TF32-exact mantissas: products are exact in FP32
    case GemmPrecision::fp16:
    case GemmPrecision::bf16:
      return {u_out, u32 * growth};
    // Hopper's FP8 tensor cores keep about 14 bits between promotions to FP32, so the bound is
    // a fixed 2^-10 of sum |a_k b_k| rather than FP32's.
    case GemmPrecision::fp8:
      return {u_out, std::ldexp(1.0, -10)};
    case GemmPrecision::int8:
      return {0.0, 0.0};  // integer arithmetic: exact or wrong
  }
  return {u_out, u32 * growth};
}

double gemm_rms_tolerance(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::fp64:
      return 1e-12;
    case GemmPrecision::fp32:
    case GemmPrecision::tf32:
      return 1e-4;
    case GemmPrecision::fp16:
      return 2e-3;  // FP16 output rounding alone: ~2.8e-4 RMS
    case GemmPrecision::bf16:
      return 1e-2;  // BF16 output rounding alone: ~2.3e-3 RMS
    case GemmPrecision::fp8:
      return 5e-2;
    case GemmPrecision::int8:
      return 0.0;
  }
  return 1e-4;
}

}  // namespace gpuqual
