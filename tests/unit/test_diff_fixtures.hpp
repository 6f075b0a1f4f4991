#pragma once
// Records for the judging tests (diff, gate, baseline build): nodes with several GPUs and
// metrics whose samples carry seeded jitter, so a test states only what it changes.
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "baseline_builders.hpp"
#include "core/baseline/baseline.hpp"
#include "record_builders.hpp"

namespace gpuqual::testing {

inline CheckResult check(std::string name, Status status, std::string reason = "") {
  CheckResult c;
  c.name = std::move(name);
  c.status = status;
  c.reason = std::move(reason);
  return c;
}

inline MetricExpectation expectation(std::string name, std::string unit, double tolerance) {
  MetricExpectation e;
  e.name = std::move(name);
  e.unit = std::move(unit);
  e.tolerance = tolerance;
  return e;
}

// Per-GPU expected values differ by 4 % from one GPU to the next, so comparing GPU i before with
// GPU j after (index matching after a renumbering) would look like a regression.
inline double level(int gpu) { return 1000.0 * (1.0 + 0.04 * gpu); }

struct Jitter {
  std::mt19937_64 rng;
  double cv = 0.005;
  std::vector<double> operator()(double center, int n = 20) {
    std::normal_distribution<double> d(center, center * cv);
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(d(rng));
    return v;
  }
};

// A node with `gpus` GPUs and five per-GPU metrics, every sample jittered; `scale(gpu, metric)`
// multiplies the true value (1.0 = unchanged).
template <class Scale>
RunRecord node_record(Jitter& jitter, int gpus, Scale scale) {
  RunRecord r = make_record(gpus);
  CheckResult gemm = check("gemm", Status::pass);
  CheckResult hbm = check("hbm", Status::pass);
  for (int g = 0; g < gpus; ++g) {
    gemm.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", jitter(level(g) * scale(g, 0)), g));
    gemm.metrics.push_back(make_metric("gemm.fp16.tflops", "TFLOP/s", jitter(level(g) * scale(g, 1)), g));
    hbm.metrics.push_back(make_metric("hbm.triad.gbps", "GB/s", jitter(4 * level(g) * scale(g, 2)), g));
    hbm.metrics.push_back(make_metric("hbm.copy.gbps", "GB/s", jitter(4 * level(g) * scale(g, 3)), g));
    hbm.metrics.push_back(
        make_metric("hbm.latency.us", "us", jitter(0.5 * scale(g, 4)), g, Direction::lower));
  }
  r.checks = {gemm, hbm};
  return r;
}

inline RunRecord node_record(Jitter& jitter, int gpus = 8) {
  return node_record(jitter, gpus, [](int, int) { return 1.0; });
}

// A node for pool tests: every GPU at the same level (gemm 1000, hbm 4000, latency 0.5) times
// `scale(gpu, metric)`, named `host`, of class `slug`.
template <class Scale>
RunRecord flat_node_record(Jitter& jitter, const std::string& host, Scale scale, int gpus = 8,
                           const std::string& slug = "h200-sxm-141gb", double level = 1000.0) {
  RunRecord r = node_record(jitter, gpus, [&](int g, int m) {
    const double flat = m == 4 ? 1.0 : 1.0 / (1.0 + 0.04 * g);  // undo level(g); latency has none
    return scale(g, m) * flat * level / 1000.0;
  });
  r.node.hostname = host;
  r.run_id = "run-" + host;
  r.hardware_class.slug = slug;
  // Each host its own GPUs: nodes that share a GPU UUID are one machine (core/judge/gate.hpp).
  const std::size_t h = std::hash<std::string>{}(host)&0xffffffffu;
  for (auto& g : r.gpus) {
    char uuid[64];
    std::snprintf(uuid, sizeof uuid, "GPU-%08zx-0000-0000-0000-%012d", h, g.index);
    g.uuid = uuid;
  }
  return r;
}

inline RunRecord flat_node_record(Jitter& jitter, const std::string& host) {
  return flat_node_record(jitter, host, [](int, int) { return 1.0; });
}

// `r` with the other checks a built baseline requires (docs/baselines.md): health with a status
// for every GPU, and PCIe host-to-device on every GPU.
inline RunRecord with_health_and_pcie(RunRecord r, Jitter& jitter) {
  CheckResult health = check("health", Status::pass);
  CheckResult pcie = check("pcie", Status::pass);
  for (const auto& g : r.gpus) {
    health.per_gpu.push_back(GpuCheckStatus{g.index, Status::pass, "", ""});
    pcie.metrics.push_back(make_metric("pcie.h2d.gbps", "GB/s", jitter(55), g.index));
  }
  r.checks.push_back(health);
  r.checks.push_back(pcie);
  return r;
}

// The baseline those nodes are judged against: 5 % tolerance on every metric.
inline Baseline class_baseline(const std::string& slug = "h200-sxm-141gb", double level = 1000.0) {
  Baseline b;
  b.hardware_class = slug;
  b.origin = slug + ".yaml";
  auto add = [&](const char* name, const char* unit, double expected, Direction dir) {
    MetricExpectation e = expectation(name, unit, 0.05);
    e.expected = expected;
    e.direction = dir;
    b.metrics.push_back(e);
  };
  add("gemm.bf16.tflops", "TFLOP/s", level, Direction::higher);
  add("gemm.fp16.tflops", "TFLOP/s", level, Direction::higher);
  add("hbm.triad.gbps", "GB/s", 4 * level, Direction::higher);
  add("hbm.copy.gbps", "GB/s", 4 * level, Direction::higher);
  add("hbm.latency.us", "us", 0.5 * level / 1000.0, Direction::lower);
  return require_metric_checks(b);
}

// The same with the nodes' GPU count (8), so a node of flat_node_record passes whole.
inline Baseline counted(Baseline b) {
  b.gpu_count = 8;
  return b;
}

}  // namespace gpuqual::testing
