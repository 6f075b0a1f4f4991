// The per-record costs under gate and diff: reading a record (nlohmann strict reader vs the
// simdjson streaming reader), compare, summarizing a node for the pool, and diff of two records.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "bench/bench_guard.hpp"
#include "bench/synthetic_records.hpp"
#include "core/compare.hpp"
#include "core/diff.hpp"
#include "core/gate.hpp"
#include "core/gate_record_reader.hpp"
#include "core/json_input.hpp"
#include "core/record_json.hpp"

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
  if (v.outcome != Outcome::pass) guard_failed(state, std::string(reader) + ": the record read back does not pass: " + v.summary);
}

void BM_StrictReader(benchmark::State& state) {
  check_read_back(state, record_from_json(parse_json_text(record_text(), "r.json"), "r.json"), "strict reader");
  for (auto _ : state) benchmark::DoNotOptimize(record_from_json(parse_json_text(record_text(), "r.json"), "r.json"));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(record_text().size()));
}
BENCHMARK(BM_StrictReader)->Unit(benchmark::kMicrosecond);

void BM_StreamingReader(benchmark::State& state) {
  StreamingRecordReader reader;
  check_read_back(state, reader.parse(record_text(), "r.json"), "streaming reader");
  for (auto _ : state) benchmark::DoNotOptimize(reader.parse(record_text(), "r.json"));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(record_text().size()));
}
BENCHMARK(BM_StreamingReader)->Unit(benchmark::kMicrosecond);

void BM_CompareRecord(benchmark::State& state) {
  const RunRecord r = synthetic_record(1, per_gpu(), 42);
  const Baseline b = synthetic_baseline(per_gpu());
  if (const Verdict v = compare_record(r, &b, CompareOptions{}); v.outcome != Outcome::pass)
    guard_failed(state, "the synthetic record does not pass its baseline: " + v.summary);
  for (auto _ : state) benchmark::DoNotOptimize(compare_record(r, &b, CompareOptions{}));
}
BENCHMARK(BM_CompareRecord)->Unit(benchmark::kMicrosecond);

void BM_SummarizeNode(benchmark::State& state) {
  const RunRecord r = synthetic_record(1, per_gpu(), 42);
  const Baseline b = synthetic_baseline(per_gpu());
  if (const NodeSummary n = summarize_node(r, &b, GateOptions{}, "r.json", 0); n.verdict.outcome != Outcome::pass)
    guard_failed(state, "the synthetic node does not pass for the pool: " + n.verdict.summary);
  for (auto _ : state) benchmark::DoNotOptimize(summarize_node(r, &b, GateOptions{}, "r.json", 0));
}
BENCHMARK(BM_SummarizeNode)->Unit(benchmark::kMicrosecond);

void BM_DiffRecords(benchmark::State& state) {
  const RunRecord before = synthetic_record(1, per_gpu(), 42);
  const RunRecord after = synthetic_record(1, per_gpu(), 43);
  // Two healthy runs of one node (same distribution, other seed): nothing may regress.
  if (const Verdict v = diff_records(before, after, DiffOptions{}); v.outcome != Outcome::pass)
    guard_failed(state, "two healthy runs of one node do not pass diff: " + v.summary);
  for (auto _ : state) benchmark::DoNotOptimize(diff_records(before, after, DiffOptions{}));
}
BENCHMARK(BM_DiffRecords)->Unit(benchmark::kMicrosecond);

}  // namespace

GPUQUAL_BENCHMARK_MAIN()
