// `gpuqual plan` at fleet scale: 5,000 GPU nodes and 100,000 pods (bench/synthetic_cluster.hpp,
// in the API's JSON shape), read through the real Kubernetes readers and planned. The target
// (docs/plan.md): <= 2 s on 2 cores for the whole of it. Figures: docs/performance.md.
// GPUQUAL_BENCH_PLAN_NODES overrides the node count (the ctest smoke run uses a small one); the
// pods scale with it (20 per GPU node).
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "bench/bench_guard.hpp"
#include "bench/synthetic_cluster.hpp"
#include "bench/synthetic_records.hpp"
#include "core/base/json_input.hpp"
#include "core/base/simdjson_fields.hpp"
#include "core/fleet/plan.hpp"
#include "core/fleet/plan_cluster_json.hpp"
#include "core/fleet/plan_policy.hpp"

namespace {

using namespace gpuqual;

struct Texts {
  std::string nodes, pods, pdbs;
};

bench::ClusterShape shape() {
  bench::ClusterShape s;
  s.seed = 7;
  s.gpu_nodes = bench::env_int("GPUQUAL_BENCH_PLAN_NODES", 5000);
  s.cpu_nodes = s.gpu_nodes / 50;
  s.pods_per_node = 20;
  s.apps = 400;
  // A fleet being upgraded, not the property tests' adversarial one: few PDBs at zero, most
  // training checkpointed, so that most nodes are planned and the waves are what is timed.
  s.zero_budget_every = 97;
  s.overlapping_pdb = false;
  s.training_share = 0.05;
  s.checkpointed = 0.9;
  return s;
}

const Texts& texts() {
  static const Texts t = [] {
    const bench::SyntheticCluster c = bench::synthetic_cluster(shape());
    return Texts{c.nodes.dump(), c.pods.dump(), c.pdbs.dump()};
  }();
  return t;
}

const PlanPolicy& policy() {
  static const PlanPolicy p = parse_plan_policy_yaml(R"(schema: gpuqual.plan/v1
classes:
  h100-sxm-80gb: {min_schedulable_gpus: "90%", max_nodes_out: 20, canary: 2}
  a100-sxm-80gb: {min_schedulable_gpus: "85%", max_nodes_out: 20, canary: 1}
  l40s-pcie-48gb: {min_schedulable_gpus: "80%", max_nodes_out: 40, canary: 3}
  h200-sxm-141gb: {min_schedulable_gpus: "90%", max_nodes_out: 10, canary: 1}
)",
                                                     "policy.yaml");
  return p;
}

Cluster read(const Texts& t) {
  // The texts are copied, as a file is read into a string of its own (the copy is ~1 % of it).
  constexpr JsonLimits kLimits{std::size_t{4} << 30, 64};
  return {read_nodes(t.nodes, "nodes.json", kLimits), read_pods(t.pods, "pods.json", kLimits),
          read_pdbs(t.pdbs, "pdbs.json", kLimits)};
}

// The plan timed must be a real one: every GPU node accounted for, most of them in waves.
void check_plan(benchmark::State& state, const Cluster& c, const Plan& p) {
  std::size_t gpu_nodes = 0, planned = 0;
  for (const auto& n : c.nodes) gpu_nodes += n.gpus > 0;
  for (const auto& f : p.nodes) planned += f.state == NodeState::planned;
  if (p.nodes.size() != gpu_nodes || planned * 2 < gpu_nodes || p.waves.size() < 2) {
    bench::guard_failed(state, "the plan does not cover the cluster: " + p.summary);
  }
}

void BM_PlanFromJson(benchmark::State& state) {
  const Texts& t = texts();
  {
    const Cluster c = read(t);
    check_plan(state, c, make_plan(c, policy(), {}));
  }
  for (auto _ : state) {
    const Cluster c = read(t);
    benchmark::DoNotOptimize(make_plan(c, policy(), {}));
  }
  state.counters["pods"] = static_cast<double>(read(t).pods.size());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<std::int64_t>(t.nodes.size() + t.pods.size() + t.pdbs.size()));
}
BENCHMARK(BM_PlanFromJson)->Unit(benchmark::kMillisecond);

// The JSON parse alone (simdjson, as the readers parse), to tell the reader's share from the
// parser's.
void BM_ParseOnly(benchmark::State& state) {
  std::string nodes = texts().nodes, pods = texts().pods, pdbs = texts().pdbs;
  for (std::string* text : {&nodes, &pods, &pdbs}) simdjson_fields::Parser::pad(*text);
  simdjson_fields::Parser parser(JsonLimits{std::size_t{4} << 30, 64});
  for (auto _ : state) {
    benchmark::DoNotOptimize(parser.parse(nodes, "nodes.json"));
    benchmark::DoNotOptimize(parser.parse(pods, "pods.json"));
    benchmark::DoNotOptimize(parser.parse(pdbs, "pdbs.json"));
  }
}
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond);

void BM_PlanOnly(benchmark::State& state) {
  const Cluster c = read(texts());
  const Plan first = make_plan(c, policy(), {});
  check_plan(state, c, first);
  for (auto _ : state) benchmark::DoNotOptimize(make_plan(c, policy(), {}));
  state.counters["waves"] = static_cast<double>(first.waves.size());
}
BENCHMARK(BM_PlanOnly)->Unit(benchmark::kMillisecond);

}  // namespace

GPUQUAL_BENCHMARK_MAIN();
