#pragma once
// Correctness guards for the benchmark programs. A benchmark that timed the wrong thing (a pool
// that does not pass, a gpuqual process that failed, a reader that returned nothing) must not
// print a figure that looks fine and exit 0: Google Benchmark's SkipWithError only marks the run
// and the program still exits 0, so `ctest -L bench` would stay green. guard_failed marks the run
// and remembers it; GPUQUAL_BENCHMARK_MAIN's main then exits 1, failing the smoke test.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace gpuqual::bench {

inline std::atomic<int>& guard_failures() {
  static std::atomic<int> n{0};
  return n;
}

inline void guard_failed(benchmark::State& state, const std::string& why) {
  guard_failures().fetch_add(1);
  state.SkipWithError(why.c_str());
}

inline int run_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 3;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (const int n = guard_failures().load(); n > 0) {
    std::fprintf(stderr, "%s: %d correctness guard(s) failed: the figures above are not valid\n", argv[0], n);
    return 1;
  }
  return 0;
}

}  // namespace gpuqual::bench

// Instead of BENCHMARK_MAIN(): the same, plus exit 1 when a correctness guard failed.
#define GPUQUAL_BENCHMARK_MAIN() \
  int main(int argc, char** argv) { return gpuqual::bench::run_benchmarks(argc, argv); }
