#include "core/verdict/noise_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/stats.hpp"
#include "core/verdict/tolerance.hpp"

namespace gpuqual::noise {

namespace {

// Above this many pairwise differences, select by counting instead of materialising them.
constexpr std::size_t kEnumerateLimit = std::size_t{1} << 16;

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// P(U <= u) for u = 0..n*m under H0, from the coefficients of the Gaussian binomial
// [n+m choose n]_q, whose q^u coefficient counts the arrangements with U = u. Built as
// prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i); after step i the polynomial is [m+i choose i]_q, so
// every intermediate coefficient is a non-negative integer (exact in double up to 2^53, and
// relative error ~1e-16 beyond, far below any tail probability used here).
std::vector<double> mann_whitney_cdf(std::size_t n, std::size_t m) {
  const std::size_t top = n * m;
  std::vector<double> c(top + 1, 0.0);
  c[0] = 1.0;
  for (std::size_t i = 1; i <= n; ++i) {
    const std::size_t up = m + i;  // multiply by (1 - q^up)
    for (std::size_t u = top; u >= up; --u) c[u] -= c[u - up];
    for (std::size_t u = i; u <= top; ++u) c[u] += c[u - i];  // divide by (1 - q^i)
  }
  double total = 0;
  for (double v : c) total += v;
  double run = 0;
  for (double& v : c) {
    run += v;
    v = run / total;
  }
  return c;
}

// P(X <= k) for X ~ Binomial(n, 1/2), k = 0..n, summed in log space so n in the thousands is fine.
std::vector<double> binomial_half_cdf(std::size_t n) {
  const double ln2 = std::log(2.0);
  const double lg_n = std::lgamma(static_cast<double>(n) + 1);
  std::vector<double> cdf(n + 1);
  double sum = 0;
  for (std::size_t i = 0; i <= n; ++i) {
    const double lp = lg_n - std::lgamma(static_cast<double>(i) + 1) -
                      std::lgamma(static_cast<double>(n - i) + 1) - static_cast<double>(n) * ln2;
    sum += std::exp(lp);
    cdf[i] = std::min(sum, 1.0);
  }
  return cdf;
}

// Number of pairs with a[j] - b[i] <= t. For b ascending the admissible prefix of a grows, so
// one pass with two pointers suffices. IEEE subtraction is monotone in each operand, so the
// count agrees with the differences an enumeration would compute.
std::size_t count_at_most(std::span<const double> a, std::span<const double> b, double t) {
  std::size_t count = 0;
  std::size_t j = 0;
  for (double bi : b) {
    while (j < a.size() && a[j] - bi <= t) ++j;
    count += j;
  }
  return count;
}

double hodges_lehmann(std::span<const double> a, std::span<const double> b) {
  const std::size_t nm = a.size() * b.size();
  if (nm % 2 == 1) return kth_pairwise_difference(a, b, (nm + 1) / 2);
  return 0.5 * (kth_pairwise_difference(a, b, nm / 2) + kth_pairwise_difference(a, b, nm / 2 + 1));
}

std::string percent(double fraction) { return fmt::format("{:+.2f} %", fraction * 100.0); }

}  // namespace

double normal_quantile(double p) {
  if (p <= 0) return -INFINITY;
  if (p >= 1) return INFINITY;
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::size_t moses_rank(std::size_t n, std::size_t m, double confidence, double* coverage) {
  const std::size_t nm = n * m;
  const double tail = (1.0 - confidence) / 2.0;
  std::size_t k = 1;
  double cov = 0;
  if (nm <= kExactLimit) {
    const std::vector<double> cdf = mann_whitney_cdf(std::min(n, m), std::max(n, m));
    // Largest k with P(U <= k-1) <= tail; the interval [D(k), D(nm+1-k)] then misses the true
    // shift with probability at most `tail` on each side.
    while (k < (nm + 1) / 2 && cdf[k] <= tail) ++k;
    cov = 1.0 - 2.0 * cdf[k - 1];
  } else {
    const double mean = static_cast<double>(nm) / 2.0;
    const double sd = std::sqrt(static_cast<double>(nm) * static_cast<double>(n + m + 1) / 12.0);
    const double z = normal_quantile(1.0 - tail);
    const double kk = std::floor(mean - z * sd - 0.5) + 1.0;
    k = kk < 1 ? 1 : static_cast<std::size_t>(kk);
    k = std::min(k, (nm + 1) / 2);
    cov = 1.0 - 2.0 * normal_cdf((static_cast<double>(k - 1) + 0.5 - mean) / sd);
  }
  if (coverage) *coverage = cov;
  return k;
}

std::size_t median_rank(std::size_t n, double confidence, double* coverage) {
  if (n == 0) {
    if (coverage) *coverage = 0;
    return 1;
  }
  const double tail = (1.0 - confidence) / 2.0;
  const std::vector<double> cdf = binomial_half_cdf(n);
  std::size_t j = 1;
  // Largest j with P(X <= j-1) <= tail: x(j) lies above the true median with at most that chance.
  while (j < (n + 1) / 2 && cdf[j] <= tail) ++j;
  if (coverage) *coverage = 1.0 - 2.0 * cdf[j - 1];
  return j;
}

double kth_pairwise_difference(std::span<const double> a, std::span<const double> b, std::size_t k) {
  const std::size_t nm = a.size() * b.size();
  if (nm <= kEnumerateLimit) {
    std::vector<double> d;
    d.reserve(nm);
    for (double bi : b)
      for (double aj : a) d.push_back(aj - bi);
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k - 1), d.end());
    return d[k - 1];
  }
  // Bisection on the value: count(lo) < k <= count(hi). Ends when lo and hi are adjacent
  // doubles; the k-th difference is then the largest difference <= hi.
  double lo = a.front() - b.back();
  double hi = a.back() - b.front();
  if (count_at_most(a, b, lo) >= k) return lo;
  for (int i = 0; i < 2000; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (count_at_most(a, b, mid) >= k ? hi : lo) = mid;
  }
  double best = lo;
  std::size_t j = 0;
  for (double bi : b) {
    while (j < a.size() && a[j] - bi <= hi) ++j;
    if (j > 0) best = std::max(best, a[j - 1] - bi);
  }
  return best;
}

std::optional<RelativeChange> relative_change(std::span<const double> before, std::span<const double> after,
                                              double confidence) {
  if (before.empty() || after.empty()) return std::nullopt;
  const auto positive = [](double v) { return v > 0; };
  const bool logs = std::all_of(before.begin(), before.end(), positive) &&
                    std::all_of(after.begin(), after.end(), positive);
  const double scale = std::fabs(stats::median(before));
  if (!logs && scale == 0) return std::nullopt;
  auto transform = [&](std::span<const double> x) {
    std::vector<double> out(x.begin(), x.end());
    for (double& v : out) v = logs ? std::log(v) : v / scale;
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<double> b = transform(before);
  const std::vector<double> a = transform(after);
  RelativeChange r;
  r.log_scale = logs;
  const std::size_t nm = a.size() * b.size();
  double coverage = 0;
  const std::size_t k = moses_rank(b.size(), a.size(), confidence, &coverage);
  const auto back = [&](double v) { return logs ? std::expm1(v) : v; };
  r.estimate = back(hodges_lehmann(a, b));
  r.low = back(kth_pairwise_difference(a, b, k));
  r.high = back(kth_pairwise_difference(a, b, nm + 1 - k));
  r.confidence = coverage;
  r.reached = coverage >= confidence;
  return r;
}

std::optional<RelativeChange> median_vs_expected(std::span<const double> values, double expected,
                                                 double confidence) {
  if (values.empty() || !(expected > 0)) return std::nullopt;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  double coverage = 0;
  const std::size_t j = median_rank(v.size(), confidence, &coverage);
  RelativeChange r;
  r.log_scale = false;
  r.estimate = stats::median(v) / expected - 1.0;
  r.low = v[j - 1] / expected - 1.0;
  r.high = v[v.size() - j] / expected - 1.0;
  r.confidence = coverage;
  r.reached = coverage >= confidence;
  return r;
}

ChangeJudgement judge_change(const RelativeChange& change, Direction direction, const DropRule& rule) {
  ChangeJudgement j;
  j.change = change;
  const bool higher = direction == Direction::higher;
  j.worse_estimate = higher ? -change.estimate : change.estimate;
  // The end of the interval nearest to "no worse": the change is at least this bad.
  j.worse_bound = higher ? -change.high : change.low;
  const std::string interval = fmt::format(
      "{} ({:.0f} % interval {} .. {}{})", percent(change.estimate), rule.confidence * 100.0,
      percent(change.low), percent(change.high),
      change.reached ? ""
                     : fmt::format("; too few samples for {:.0f} %, full range used, coverage {:.0f} %",
                                   rule.confidence * 100.0, change.confidence * 100.0));
  const std::string worse_word = higher ? "drop" : "rise";
  if (beyond_allowed(j.worse_bound, rule.allowed_drop)) {
    j.status = Status::fail;
    j.reason = fmt::format("{}: {} beyond the allowed {} of {:.2f} %", interval, worse_word, worse_word,
                           rule.allowed_drop * 100.0);
  } else if (rule.warn_drop && beyond_allowed(j.worse_bound, *rule.warn_drop)) {
    j.status = Status::warn;
    j.reason = fmt::format("{}: {} beyond the warn level of {:.2f} %", interval, worse_word,
                           *rule.warn_drop * 100.0);
  } else if (beyond_allowed(j.worse_estimate, rule.allowed_drop)) {
    j.status = Status::warn;
    j.reason = fmt::format("{}: {} beyond the allowed {:.2f} %, but not with {:.0f} % confidence", interval,
                           worse_word, rule.allowed_drop * 100.0, rule.confidence * 100.0);
  } else {
    j.status = Status::pass;
    j.reason =
        fmt::format("{}: within the allowed {} of {:.2f} %", interval, worse_word, rule.allowed_drop * 100.0);
  }
  return j;
}

}  // namespace gpuqual::noise
