// gate over a pool of record files, in process and as the real `gpuqual gate` (wall time, CPU
// time and peak memory of the whole process), and `gpuqual compare` of one record as a whole
// process.
// Records are generated in a temporary directory on first use and removed at exit:
//   GPUQUAL_BENCH_RECORDS          pool size (default 10000)
//   GPUQUAL_BENCH_METRICS_PER_GPU  metrics per GPU, 20 samples each (default 5)
//   GPUQUAL_BENCH_GPUS             GPUs per node (default 8; 2 for the 2-GPU nodes of docs/performance.md's
//   gate figures: a
//                                  13 KB record with every canary check)
// Every node has its own name (k8s_node_name) and GPU UUIDs, so gate judges each record as its
// own machine: none is a duplicate.
//   GPUQUAL_BENCH_GPUQUAL          the gpuqual binary to time (default: the one built with it)
// Budgets (docs/performance.md, "Judging speed", where they are measured): gate over 10,000 records <= 2 s
// wall and
// <= 1 GB peak on 2 cores; compare of one record <= 50 ms for the whole process.
#include <benchmark/benchmark.h>

#include "bench/bench_guard.hpp"
#include "bench/process_run.hpp"
#include "bench/synthetic_records.hpp"
#include "core/judge/gate_stream.hpp"

namespace {

using namespace gpuqual;
using namespace gpuqual::bench;

int pool_size() { return env_int("GPUQUAL_BENCH_RECORDS", 10000); }
int per_gpu() { return env_int("GPUQUAL_BENCH_METRICS_PER_GPU", 5); }
int gpus() { return env_int("GPUQUAL_BENCH_GPUS", 8); }

RecordDir& records() {
  static RecordDir dir(pool_size(), per_gpu(), gpus());
  return dir;
}

void BM_GateInProcess(benchmark::State& state) {
  const auto& paths = records().paths();
  FixedBaselines baselines(std::vector<Baseline>{synthetic_baseline(per_gpu(), gpus())});
  for (auto _ : state) {
    Verdict v = gate_records(paths, baselines, GateOptions{}, static_cast<unsigned>(state.range(0)));
    if (v.outcome != Outcome::pass) guard_failed(state, "the synthetic pool did not pass: " + v.summary);
    benchmark::DoNotOptimize(v);
  }
  state.counters["records"] = static_cast<double>(paths.size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(paths.size()));
}
BENCHMARK(BM_GateInProcess)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GateProcess(benchmark::State& state) {
  ProcessTally tally;
  for (auto _ : state) {
    const ProcessRun r = run_process(
        {gpuqual_binary(), "gate", records().records_dir(), "--baseline", records().baseline_path()});
    if (r.exit_code != 0) guard_failed(state, "gpuqual gate exited " + std::to_string(r.exit_code));
    state.SetIterationTime(r.wall_s);
    tally.add(r);
  }
  state.counters["cpu_s"] = tally.mean_cpu_s();
  state.counters["records"] = static_cast<double>(records().paths().size());
  state.counters["peak_rss_MiB"] = tally.peak_mib();
}
BENCHMARK(BM_GateProcess)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_CompareProcess(benchmark::State& state) {
  ProcessTally tally;
  for (auto _ : state) {
    const ProcessRun r = run_process(
        {gpuqual_binary(), "compare", records().paths().front(), "--baseline", records().baseline_path()});
    if (r.exit_code != 0) guard_failed(state, "gpuqual compare exited " + std::to_string(r.exit_code));
    state.SetIterationTime(r.wall_s);
    tally.add(r);
  }
  state.counters["cpu_s"] = tally.mean_cpu_s();
  state.counters["peak_rss_MiB"] = tally.peak_mib();
}
BENCHMARK(BM_CompareProcess)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

GPUQUAL_BENCHMARK_MAIN()
