// The noise model's interval for one metric: 20 vs 20 samples (a canary run), and burn-in sizes
// where the pairwise differences are selected by counting instead of enumerated; and the median
// every record reader recomputes for every metric (stats::percentile's selection).
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bench/bench_guard.hpp"
#include "core/base/stats.hpp"
#include "core/verdict/noise_model.hpp"

namespace {

using namespace gpuqual;
using gpuqual::bench::guard_failed;

std::vector<double> samples(std::size_t n, double center, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(center, center * 0.005);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

void BM_RelativeChange(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto before = samples(n, 1000, 1), after = samples(n, 990, 2);
  // A 1 % drop on a 0.5 % CV must come out as about -1 % (4 standard errors at n = 20).
  const auto change = noise::relative_change(before, after, 0.95);
  if (!change || change->estimate < -0.015 || change->estimate > -0.005)
    guard_failed(state, change ? fmt::format("estimate {:.4f}, expected about -0.01", change->estimate)
                               : "no estimate");
  for (auto _ : state) benchmark::DoNotOptimize(noise::relative_change(before, after, 0.95));
}
BENCHMARK(BM_RelativeChange)->Arg(20)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_MedianVsExpected(benchmark::State& state) {
  const auto values = samples(static_cast<std::size_t>(state.range(0)), 1000, 3);
  const auto change = noise::median_vs_expected(values, 1000, 0.95);
  if (!change || std::abs(change->estimate) > 0.01)
    guard_failed(state,
                 change ? fmt::format("estimate {:.4f}, expected about 0", change->estimate) : "no estimate");
  for (auto _ : state) benchmark::DoNotOptimize(noise::median_vs_expected(values, 1000, 0.95));
}
BENCHMARK(BM_MedianVsExpected)->Arg(8)->Arg(10000)->Unit(benchmark::kMicrosecond);

// 1,024 different samples in turn: one sample over and over would train the branch predictor
// on its comparisons and time a selection 5x too fast.
std::vector<std::vector<double>> many_samples(std::size_t n) {
  std::vector<std::vector<double>> v;
  for (std::uint64_t k = 0; k < 1024; ++k) v.push_back(samples(n, 1000, 100 + k));
  return v;
}

double sorted_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) * 0.5;
}

void BM_Median(benchmark::State& state) {
  const auto sets = many_samples(static_cast<std::size_t>(state.range(0)));
  for (const auto& s : sets) {
    if (stats::median(s) != sorted_median(s)) guard_failed(state, "stats::median is not the sorted median");
  }
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(stats::median(sets[i++ & 1023]));
}
BENCHMARK(BM_Median)->Arg(5)->Arg(20)->Arg(40)->Arg(100)->Arg(1000)->Unit(benchmark::kNanosecond);

// What the record readers do: check a stored median (here the right one) against its samples.
void BM_MedianWithHint(benchmark::State& state) {
  const auto sets = many_samples(static_cast<std::size_t>(state.range(0)));
  std::vector<double> stored;
  for (const auto& s : sets) stored.push_back(sorted_median(s));
  for (std::size_t k = 0; k < sets.size(); ++k) {
    if (stats::median_with_hint(sets[k], stored[k]) != stored[k])
      guard_failed(state, "median_with_hint is not the median");
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const std::size_t k = i++ & 1023;
    benchmark::DoNotOptimize(stats::median_with_hint(sets[k], stored[k]));
  }
}
BENCHMARK(BM_MedianWithHint)->Arg(5)->Arg(20)->Arg(40)->Arg(100)->Arg(1000)->Unit(benchmark::kNanosecond);

}  // namespace

GPUQUAL_BENCHMARK_MAIN()
