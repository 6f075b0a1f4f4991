#pragma once
// The noise model that decides whether a metric moved: distribution-free intervals, so a verdict
// rests on every sample of both runs, not on two medians alone.
//
// diff (two runs of one node): the Hodges-Lehmann estimate of the shift between the after- and
// the before-samples, with the Moses interval from the exact Mann-Whitney distribution (normal
// approximation once n*m is large). Computed on log(samples), so the shift is a ratio of
// locations (for a pure scale change, the ratio of medians); reported as the relative change
// after/before - 1. Rank-based: a right tail (clock ramp, preemption) or an outlier sample does
// not move it, and no random seed is involved, so a verdict is reproducible.
//
// gate (a pool of nodes against the class baseline): the median of the per-node values with the
// order-statistic (binomial) interval, relative to the baseline's expected value.
//
// When the samples are too few for the requested confidence (the smallest two-sided Mann-Whitney
// p for 3 vs 3 runs is 0.1), the widest interval is used instead — the full range of pairwise
// ratios, or min..max of the pool — and `reached` is false: a drop then counts as confirmed only
// when every after-sample is worse than every before-sample by more than the allowed drop.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "core/record/record.hpp"
#include "core/record/status.hpp"

namespace gpuqual::noise {

// A relative change with its interval, all as fractions (-0.03 = 3 % lower).
struct RelativeChange {
  double estimate = 0;
  double low = 0;
  double high = 0;
  double confidence = 0;  // coverage the interval has (exact or approximate)
  bool reached = false;   // false: too few samples for the requested confidence
  bool log_scale = true;  // false: samples were not all positive; additive shift / before median
};

// Hodges-Lehmann/Moses interval on after vs before. Empty when either side is empty, or when the
// samples are not all positive and the before-median is 0 (a relative change is undefined).
std::optional<RelativeChange> relative_change(std::span<const double> before, std::span<const double> after,
                                              double confidence);

// Median of `values` with its order-statistic interval, relative to `expected` (> 0).
std::optional<RelativeChange> median_vs_expected(std::span<const double> values, double expected,
                                                 double confidence);

// How far a metric may move before it counts: fractions of the reference value.
struct DropRule {
  double allowed_drop = 0.02;       // worse by more than this, with confidence → fail
  std::optional<double> warn_drop;  // worse by more than this, with confidence → warn
  double confidence = 0.95;         // two-sided coverage of the interval
};

struct ChangeJudgement {
  Status status = Status::error;
  RelativeChange change;
  // The change in the "worse" sense (positive = worse for the metric's direction): estimate and
  // the conservative (least-worse) bound of the interval.
  double worse_estimate = 0;
  double worse_bound = 0;
  std::string reason;
};

// fail: the interval lies entirely beyond the allowed drop. warn: the interval lies beyond the
// warn drop, or the estimate is beyond the allowed drop without confidence (not confirmed).
// pass otherwise. Direction lower: a rise is worse (after/before - 1 > allowed).
ChangeJudgement judge_change(const RelativeChange& change, Direction direction, const DropRule& rule);

// Exposed for tests. Smallest rank k such that the interval [D(k), D(nm+1-k)] of the n*m pairwise
// differences covers at least `confidence` (two-sided) under the exact Mann-Whitney null
// distribution (n*m <= kExactLimit) or its normal approximation. k = 1 when unreachable;
// `coverage` receives the interval's coverage.
inline constexpr std::size_t kExactLimit = 10000;
std::size_t moses_rank(std::size_t n, std::size_t m, double confidence, double* coverage);
// Rank j for the order-statistic interval [x(j), x(N+1-j)] of a median (binomial p = 1/2).
std::size_t median_rank(std::size_t n, double confidence, double* coverage);
// Standard normal quantile: bisection on std::erfc (the normal CDF), exact to double precision.
double normal_quantile(double p);
// k-th smallest (1-based) of the n*m differences a[j] - b[i], a and b sorted ascending; exact
// enumeration when small, selection by counting otherwise (for burn-in runs with 10^4 samples).
double kth_pairwise_difference(std::span<const double> a_sorted, std::span<const double> b_sorted,
                               std::size_t k);

}  // namespace gpuqual::noise
