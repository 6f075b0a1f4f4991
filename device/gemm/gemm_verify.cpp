#include "device/gemm/gemm_verify.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "kernels/seeded_hash.cuh"

namespace gpuqual {

std::vector<GemmPoint> gemm_sample_points(std::uint64_t m, std::uint64_t n, int count, std::uint64_t seed) {
  std::vector<GemmPoint> out;
  if (m == 0 || n == 0 || count <= 0) return out;
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  auto add = [&](std::uint64_t r, std::uint64_t c) {
    if (seen.insert({r, c}).second) out.push_back({r, c});
  };
  add(0, 0);
  add(m - 1, n - 1);
  add(m - 1, 0);
  add(0, n - 1);
  const auto total = static_cast<double>(m) * static_cast<double>(n);
  const auto wanted = static_cast<std::size_t>(std::min(static_cast<double>(std::max(count, 4)), total));
  for (std::uint64_t i = 0; out.size() < wanted; ++i) {
    const std::uint64_t h = kernels::seeded_hash(seed, 0x73616d70ULL, i);
    add((h >> 32) % m, (h & 0xffffffffULL) % n);
  }
  return out;
}

GemmReference gemm_reference(GemmPrecision p, std::uint64_t seed, std::uint64_t k, const GemmPoint& point) {
  const auto kind = gemm_input_kind(p);
  GemmReference ref;
  // Products of inputs with <= 24-bit mantissas are exact in double; FP64 products round once
  // (2^-53), far inside FP64's tolerance.
  for (std::uint64_t i = 0; i < k; ++i) {
    const double a = kernels::gemm_input_value(kind, seed, 0, i + point.row * k);
    const double b = kernels::gemm_input_value(kind, seed, 1, i + point.col * k);
    ref.value += a * b;
    ref.abs_terms += std::fabs(a * b);
  }
  return ref;
}

std::string GemmCheck::summary() const {
  std::ostringstream out;
  out << wrong << " of " << checked << " sampled elements wrong";
  if (!first_wrong.empty()) out << " (first: " << first_wrong << ")";
  out << "; relative RMS error " << rel_rms_error << (rms_ok ? "" : " (over the limit)");
  return out.str();
}

GemmCheck check_gemm_samples(GemmPrecision p, std::uint64_t k, const std::vector<GemmPoint>& points,
                             const std::vector<double>& got, const std::vector<GemmReference>& refs) {
  if (got.size() != points.size() || refs.size() != points.size()) {
    throw std::invalid_argument("check_gemm_samples: points, results and references differ in length");
  }
  const auto tol = gemm_tolerance(p, k);
  GemmCheck c;
  double err2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    ++c.checked;
    const double g = got[i], r = refs[i].value;
    const double allowed = 2.0 * tol.output_roundoff * std::fabs(r) + tol.accumulation * refs[i].abs_terms;
    const bool ok = kernels::gemm_element_ok(g, r, refs[i].abs_terms, tol);
    const double err = std::isfinite(g) ? std::fabs(g - r) : INFINITY;
    err2 += err * err;
    ref2 += r * r;
    const double ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0.0);
    c.worst_ratio = std::max(c.worst_ratio, ratio);
    if (!ok) {
      if (c.wrong == 0) {
        std::ostringstream w;
        w << "D[" << points[i].row << "," << points[i].col << "] = " << g << " expected " << r
          << " (allowed error " << allowed << ")";
        c.first_wrong = w.str();
      }
      ++c.wrong;
    }
  }
  c.rel_rms_error = ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0);
  c.rms_ok = std::isfinite(c.rel_rms_error) && c.rel_rms_error <= gemm_rms_tolerance(p);
  return c;
}

}  // namespace gpuqual
