#pragma once
// The one tolerance boundary every judging rule uses (compare, diff, gate): a change worse by
// exactly the allowed fraction passes; only a change beyond it counts. The comparison carries a
// relative epsilon so that decimal cases land on the side they read as: 771 x 0.95 = 732.45 is a
// drop of exactly 5 %, although (771 - 732.45) / 771 evaluates to 0.05000000000000004 in doubles.
// NaN is never "within": a rule given a NaN worse-fraction treats it as beyond.
#include <algorithm>
#include <cmath>

namespace gpuqual {

// Relative epsilon of the boundary: far below any tolerance a baseline states (0.1 % and up),
// far above the rounding of a ratio of doubles (~1e-16).
inline constexpr double kToleranceEpsilon = 1e-9;

// `worse` and `allowed` are fractions in the bad direction (0.05 = 5 % worse).
inline bool beyond_allowed(double worse, double allowed) {
  if (std::isnan(worse) || std::isnan(allowed)) return true;
  return worse > allowed + kToleranceEpsilon * std::max(1.0, std::abs(allowed));
}

}  // namespace gpuqual
