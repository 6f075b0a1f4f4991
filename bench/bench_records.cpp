// The per-record costs under gate and diff: reading a record (the one reader, simdjson's
// StreamingRecordReader), compare, summarizing a node for the pool, and diff of two records.
#include <benchmark/benchmark.h>

#include "bench/bench_guard.hpp"
#include "bench/synthetic_records.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/gate.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"

namespace {

using namespace gpuqual;
using namespace gpuqual::bench;

int per_gpu() { return env_int("GPUQUAL_BENCH_METRICS_PER_GPU", 5); }

const std::string& record_text() {
  static const std::string text = record_to_text(synthetic_record(1, per_gpu(), 42));
  return text;
}

// The synthetic record read back must still be the record that passes its baseline: a reader that
// drops metrics would otherwise get faster.
void check_read_back(benchmark::State& state, const RunRecord& r, const char* reader) {
  const Baseline b = synthetic_baseline(per_gpu());
  const Verdict v = compare_record(r, &b, CompareOptions{});
  if (v.outcome != Outcome::pass)
    guard_failed(state, std::string(reader) + ": the record read back does not pass: " + v.summary);
}

void BM_StreamingReader(benchmark::State& state) {
  StreamingRecordReader reader;
  check_read_back(state, reader.parse(record_text(), "r.json"), "streaming reader");
  for (auto _ : state) benchmark::DoNotOptimize(reader.parse(record_text(), "r.json"));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(record_text().size()));
}
BENCHMARK(BM_StreamingReader)->Unit(benchmark::kMicrosecond);

// A slowed copy must fail on the slowed rows and nothing else: a record that passes by judging
// nothing, or fails for another reason, would time the wrong path.
void check_fails_when_slowed(benchmark::State& state, const RunRecord& r, const Baseline& b) {
  const Verdict v = compare_record(slowed(r, "gemm", 1, 0.9), &b, CompareOptions{});
  bool other = false, slow = false;
  for (const auto& m : v.metrics) {
    if (m.status == Status::pass) continue;
    (m.check == "gemm" && m.gpu == 1 && m.status == Status::fail ? slow : other) = true;
  }
  for (const auto& c : v.checks)
    other = other || (c.status != Status::pass && !c.skip_accepted && c.check != "gemm");
  if (v.outcome != Outcome::fail || !slow || other)
    guard_failed(state, "GPU 1's GEMM 10 % slower does not fail on that alone: " + v.summary);
}

void BM_CompareRecord(benchmark::State& state) {
  const RunRecord r = synthetic_record(1, per_gpu(), 42);
  const Baseline b = synthetic_baseline(per_gpu());
  if (const Verdict v = compare_record(r, &b, CompareOptions{}); v.outcome != Outcome::pass)
    guard_failed(state, "the synthetic record does not pass its baseline: " + v.summary);
  check_fails_when_slowed(state, r, b);
  for (auto _ : state) benchmark::DoNotOptimize(compare_record(r, &b, CompareOptions{}));
}
BENCHMARK(BM_CompareRecord)->Unit(benchmark::kMicrosecond);

void BM_SummarizeNode(benchmark::State& state) {
  const RunRecord r = synthetic_record(1, per_gpu(), 42);
  const Baseline b = synthetic_baseline(per_gpu());
  if (const NodeSummary n = summarize_node(r, &b, GateOptions{}, "r.json", 0);
      n.verdict.outcome != Outcome::pass)
    guard_failed(state, "the synthetic node does not pass for the pool: " + n.verdict.summary);
  for (auto _ : state) benchmark::DoNotOptimize(summarize_node(r, &b, GateOptions{}, "r.json", 0));
}
BENCHMARK(BM_SummarizeNode)->Unit(benchmark::kMicrosecond);

void BM_DiffRecords(benchmark::State& state) {
  const RunRecord before = synthetic_record(1, per_gpu(), 42);
  // Two healthy runs of one node (same distribution, other seed), the after-run a day later:
  // nothing may regress. The after-record is judged against the class's baseline too, as
  // `gpuqual diff` judges it.
  RunRecord after = synthetic_record(1, per_gpu(), 43);
  after.started_at = "2026-12-01T12:00:00Z";
  after.ended_at = "2026-12-01T12:03:00Z";
  const Baseline b = synthetic_baseline(per_gpu());
  DiffOptions options;
  options.after_baseline = &b;
  if (const Verdict v = diff_records(before, after, options); v.outcome != Outcome::pass)
    guard_failed(state, "two healthy runs of one node do not pass diff: " + v.summary);
  if (const Verdict v = diff_records(before, slowed(after, "hbm", 2, 0.8), options);
      v.outcome != Outcome::fail)
    guard_failed(state, "GPU 2's HBM 20 % slower after does not fail diff: " + v.summary);
  for (auto _ : state) benchmark::DoNotOptimize(diff_records(before, after, options));
}
BENCHMARK(BM_DiffRecords)->Unit(benchmark::kMicrosecond);

}  // namespace

GPUQUAL_BENCHMARK_MAIN()
