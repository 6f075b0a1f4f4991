#pragma once
// Checking a GEMM's answer on the host: which output elements to sample, their double-precision
// reference recomputed from the seeded generator, and the verdict over the samples.
//
// Layout ("TN", what cuBLASLt needs for FP8 and INT8, used for every precision so one reference
// serves all): A is stored K x M column-major (lda = K) and used transposed, B is K x N
// column-major (ldb = K), D is M x N column-major (ldd = M):
//   D[row + col*M] = sum_k A[k + row*K] * B[k + col*K].
#include <cstdint>
#include <string>
#include <vector>

#include "device/gemm/gemm_precision.hpp"

namespace gpuqual {

struct GemmPoint {
  std::uint64_t row = 0;
  std::uint64_t col = 0;
};

// `count` seeded positions in an m x n output, always including the four corners (where a
// wrong leading dimension or a tail tile shows first). Fewer than four only if the output is.
std::vector<GemmPoint> gemm_sample_points(std::uint64_t m, std::uint64_t n, int count, std::uint64_t seed);

// The position of a point in D (column-major, ldd = m).
inline std::uint64_t gemm_output_index(const GemmPoint& p, std::uint64_t m) { return p.row + p.col * m; }

struct GemmReference {
  double value = 0;      // sum_k a_k b_k
  double abs_terms = 0;  // sum_k |a_k b_k|, the scale of the accumulation error
};
GemmReference gemm_reference(GemmPrecision p, std::uint64_t seed, std::uint64_t k, const GemmPoint& point);

struct GemmCheck {
  int checked = 0;
  int wrong = 0;             // elements outside the per-element tolerance (NaN/Inf included)
  double rel_rms_error = 0;  // sqrt(sum err^2 / sum ref^2)
  double worst_ratio = 0;    // max |err| / allowed error (> 1 is wrong)
  std::string first_wrong;   // "D[12,4077] = 1.5 expected 3.25 (allowed error 0.01)"
  bool ok() const { return checked > 0 && wrong == 0; }
  bool rms_ok = true;
  bool passed() const { return ok() && rms_ok; }
  std::string summary() const;  // one line for a finding or a reason
};

// Judges sampled outputs `got[i]` (the element at points[i]) against `refs[i]`.
GemmCheck check_gemm_samples(GemmPrecision p, std::uint64_t k, const std::vector<GemmPoint>& points,
                             const std::vector<double>& got, const std::vector<GemmReference>& refs);

}  // namespace gpuqual
