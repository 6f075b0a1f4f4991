#pragma once
// The GEMM input generator and the answer-checking rule, shared by the fill kernel and the host
// reference (docs/architecture.md: "GEMM against a reference"; never benchmark on zeros).
//
// Every input is sign * (1 + f / 2^m) * 2^e with e in {-1, 0}: |x| in [0.5, 2), never zero,
// and with `m` random mantissa bits, m being the mantissa width of the storage format. So the
// tensor cores see full-entropy mantissas (realistic power, hence realistic clocks) while every
// value is exactly representable in its format: the host regenerates the inputs in double
// without any rounding question, and its reference is the exact answer up to its own summation.
#include <cstdint>

#include "kernels/hd.cuh"
#include "kernels/seeded_hash.cuh"

namespace gpuqual::kernels {

// How a GEMM's inputs are stored (TF32 is stored as FP32 with 10-bit mantissas).
enum class GemmInputKind : int { f64 = 0, f32, tf32, f16, bf16, e4m3, i8 };
// How a GEMM's output is stored.
enum class GemmOutputKind : int { f64 = 0, f32, f16, bf16, i32 };

GPUQUAL_HD inline int gemm_input_mantissa_bits(GemmInputKind kind) {
  switch (kind) {
    case GemmInputKind::f64:
      return 52;
    case GemmInputKind::f32:
      return 23;
    case GemmInputKind::tf32:
      return 10;
    case GemmInputKind::f16:
      return 10;
    case GemmInputKind::bf16:
      return 7;
    case GemmInputKind::e4m3:
      return 3;
    case GemmInputKind::i8:
      return 0;
  }
  return 0;
}

// Element `index` of input matrix `matrix` (0 = A, 1 = B) for `seed`, as the exact double value.
// INT8 inputs are integers in [-127, 127] without 0 (an int32 accumulator holds K up to 2^17).
GPUQUAL_HD inline double gemm_input_value(GemmInputKind kind, std::uint64_t seed, std::uint32_t matrix,
                                          std::uint64_t index) {
  const std::uint64_t h = seeded_hash(seed, 0x67656d6d00ULL + matrix, index);
  const double sign = (h & 1U) ? -1.0 : 1.0;
  if (kind == GemmInputKind::i8) {
    const int magnitude = 1 + static_cast<int>((h >> 8) % 127U);  // 1..127
    return sign * magnitude;
  }
  const int m = gemm_input_mantissa_bits(kind);
  const std::uint64_t frac = h >> (64 - m);                        // top m bits
  const double unit = 1.0 / static_cast<double>(1ULL << m);        // 2^-m, exact
  const double mantissa = 1.0 + static_cast<double>(frac) * unit;  // exact: frac < 2^m <= 2^52
  const double scale = ((h >> 1) & 1U) ? 1.0 : 0.5;
  return sign * mantissa * scale;
}

// Unit roundoff of the output format: half an ulp relative, for round-to-nearest output.
GPUQUAL_HD inline double gemm_output_unit_roundoff(GemmOutputKind kind) {
  switch (kind) {
    case GemmOutputKind::f64:
      return 1.1102230246251565e-16;  // 2^-53
    case GemmOutputKind::f32:
      return 5.9604644775390625e-08;  // 2^-24
    case GemmOutputKind::f16:
      return 4.8828125e-04;  // 2^-11
    case GemmOutputKind::bf16:
      return 3.90625e-03;  // 2^-8
    case GemmOutputKind::i32:
      return 0.0;  // integer results are exact
  }
  return 0.0;
}

// The per-element rule: |got - ref| <= 2 * u_out * |ref| + acc_rel * sum_k |a_k * b_k|.
// `acc_rel` bounds the accumulation error relative to the magnitude of the terms (a dot product's
// error scales with sum |a_k b_k|, not with |ref|, which may be small after cancellation);
// `u_out` covers the final rounding to the output format. NaN/Inf never pass.
struct GemmTolerance {
  double output_roundoff = 0;  // u_out
  double accumulation = 0;     // acc_rel
};

GPUQUAL_HD inline bool gemm_element_ok(double got, double ref, double abs_terms, GemmTolerance tol) {
  if (!(got == got) || got - got != 0.0) return false;  // NaN or +-Inf (without <cmath>)
  const double err = got > ref ? got - ref : ref - got;
  const double mag = ref < 0 ? -ref : ref;
  return err <= 2.0 * tol.output_roundoff * mag + tol.accumulation * abs_terms;
}

}  // namespace gpuqual::kernels
