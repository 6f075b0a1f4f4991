// `gpuqual matrix build` over a fleet of record files, in process (1 and 2 threads) and as the
// real binary (wall time and peak memory of the whole process). Every generated node has its
// own k8s_node_name (records of one node name would measure de-duplication, not judging) and
// the fleet is spread over four driver stacks, so the matrix has four known-good rows.
//   GPUQUAL_BENCH_RECORDS          fleet size (default 100000)
//   GPUQUAL_BENCH_METRICS_PER_GPU  metrics per GPU, 8 GPUs, 20 samples each (default 5 -> 40)
//   GPUQUAL_BENCH_GPUQUAL          the gpuqual binary to time (default: the one built with it)
//   GPUQUAL_BENCH_FLEET_DIR        write the fleet there and keep it (for perf/callgrind on the
//                                  binary); a directory that already holds the same number of
//                                  records is reused as it is: remove it after changing the shape
// Budget (docs/performance.md, "Judging speed", with the figure): 100,000 records <= 10 s and <= 1 GB
// on 2 cores.
#include <benchmark/benchmark.h>

#include <array>

#include "bench/bench_guard.hpp"
#include "bench/process_run.hpp"
#include "bench/synthetic_records.hpp"
#include "core/fleet/matrix_stream.hpp"

namespace {

using namespace gpuqual;
using namespace gpuqual::bench;

constexpr std::array<const char*, 4> kDrivers = {"550.90.07", "570.133.20", "575.57.08", "580.95.05"};

int fleet_size() { return env_int("GPUQUAL_BENCH_RECORDS", 100000); }
int per_gpu() { return env_int("GPUQUAL_BENCH_METRICS_PER_GPU", 5); }

// A temporary fleet: records/ and the class baseline beside it (the --baselines-dir), removed at exit.
class Fleet {
 public:
  Fleet(int n, int metrics) {
    if (const char* keep = std::getenv("GPUQUAL_BENCH_FLEET_DIR"); keep != nullptr && *keep != '\0') {
      dir_ = keep;
      keep_ = true;
    } else {
      char tmpl[] = "/tmp/gpuqual-bench-matrix-XXXXXX";
      if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
      dir_ = tmpl;
    }
    std::filesystem::create_directories(dir_ + "/records");
    const bool reuse =
        keep_ && std::filesystem::exists(dir_ + "/h200-sxm-141gb.yaml") && count_records() == n;
    for (int i = 0; i < n; ++i) {
      const std::string p = fmt::format("{}/records/node-{:06d}.json", dir_, i);
      paths_.push_back(p);
      if (reuse) continue;
      RunRecord r = synthetic_record(i, metrics, 42);
      r.node.k8s_node_name = fmt::format("gpu-node-{:06d}", i);
      r.node.driver_version = kDrivers[static_cast<std::size_t>(i) % kDrivers.size()];
      write_record(p, r);
    }
    if (!reuse)
      write_file_atomic(dir_ + "/h200-sxm-141gb.yaml", baseline_to_yaml(synthetic_baseline(metrics)));
  }
  ~Fleet() {
    if (keep_) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::vector<std::string>& paths() const { return paths_; }
  const std::string& dir() const { return dir_; }

 private:
  int count_records() const {
    int k = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_ + "/records"))
      k += e.path().extension() == ".json";
    return k;
  }
  std::string dir_;
  bool keep_ = false;
  std::vector<std::string> paths_;
};

Fleet& fleet() {
  static Fleet f(fleet_size(), per_gpu());
  return f;
}

// The guard: a matrix that is not the four known-good rows timed the wrong thing.
std::string wrong(const Matrix& m) {
  const std::size_t want_rows = std::min<std::size_t>(kDrivers.size(), fleet().paths().size());
  if (m.rows.size() != want_rows) return fmt::format("{} rows, expected {}", m.rows.size(), want_rows);
  for (const auto& r : m.rows) {
    if (r.state != MatrixState::known_good)
      return "a row is " + std::string(to_string(r.state)) + ": " + r.why;
  }
  return "";
}

void BM_MatrixBuildInProcess(benchmark::State& state) {
  const auto& paths = fleet().paths();
  FixedBaselines baselines(std::vector<Baseline>{synthetic_baseline(per_gpu())});
  for (auto _ : state) {
    MatrixBuildResult res =
        build_matrix(paths, baselines, kDefaultMinNodes, static_cast<unsigned>(state.range(0)));
    if (const std::string w = wrong(res.matrix); !w.empty()) guard_failed(state, w);
    benchmark::DoNotOptimize(res);
  }
  state.counters["records"] = static_cast<double>(paths.size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(paths.size()));
}
BENCHMARK(BM_MatrixBuildInProcess)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MatrixBuildProcess(benchmark::State& state) {
  const std::string out = fleet().dir() + "/matrix.yaml";
  ProcessTally tally;
  for (auto _ : state) {
    const ProcessRun r = run_process({gpuqual_binary(), "matrix", "build", fleet().dir() + "/records",
                                      "--baselines-dir", fleet().dir(), "-o", out});
    if (r.exit_code != 0) guard_failed(state, "gpuqual matrix build exited " + std::to_string(r.exit_code));
    state.SetIterationTime(r.wall_s);
    tally.add(r);
  }
  state.counters["cpu_s"] = tally.mean_cpu_s();
  state.counters["records"] = static_cast<double>(fleet().paths().size());
  state.counters["peak_rss_MiB"] = tally.peak_mib();
}
BENCHMARK(BM_MatrixBuildProcess)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

GPUQUAL_BENCHMARK_MAIN()
