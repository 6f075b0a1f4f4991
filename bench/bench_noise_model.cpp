// The noise model's interval for one metric: 20 vs 20 samples (a canary run), and burn-in sizes
// where the pairwise differences are selected by counting instead of enumerated.
#include <benchmark/benchmark.h>

#include <random>

#include "core/noise_model.hpp"

namespace {

using namespace gpuqual;

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
  for (auto _ : state) benchmark::DoNotOptimize(noise::relative_change(before, after, 0.95));
}
BENCHMARK(BM_RelativeChange)->Arg(20)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_MedianVsExpected(benchmark::State& state) {
  const auto values = samples(static_cast<std::size_t>(state.range(0)), 1000, 3);
  for (auto _ : state) benchmark::DoNotOptimize(noise::median_vs_expected(values, 1000, 0.95));
}
BENCHMARK(BM_MedianVsExpected)->Arg(8)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
