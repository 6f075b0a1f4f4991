#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpuqual::stats {

double mean(std::span<const double> x) {
  if (x.empty()) return 0;
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double percentile(std::span<const double> x, double p) {
  if (x.empty()) return 0;
  std::vector<double> v(x.begin(), x.end());
  std::sort(v.begin(), v.end());
  p = std::clamp(p, 0.0, 100.0);
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  const double frac = rank - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

double median(std::span<const double> x) { return percentile(x, 50.0); }

double stddev(std::span<const double> x) {
  if (x.size() < 2) return 0;
  const double m = mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

double cv(std::span<const double> x) {
  if (x.size() < 2) return 0;
  const double m = mean(x);
  if (m == 0) return 0;
  return stddev(x) / std::fabs(m);
}

double mad(std::span<const double> x) {
  if (x.empty()) return 0;
  const double m = median(x);
  std::vector<double> dev;
  dev.reserve(x.size());
  for (double v : x) dev.push_back(std::fabs(v - m));
  return median(dev);
}

double robust_sigma(std::span<const double> x) { return 1.4826 * mad(x); }

double min(std::span<const double> x) { return x.empty() ? 0 : *std::min_element(x.begin(), x.end()); }
double max(std::span<const double> x) { return x.empty() ? 0 : *std::max_element(x.begin(), x.end()); }

}  // namespace gpuqual::stats
