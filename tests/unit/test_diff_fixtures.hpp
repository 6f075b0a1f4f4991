#pragma once
// Records for the judging tests (diff, gate, baseline build): nodes with several GPUs and
// metrics whose samples carry seeded jitter, so a test states only what it changes.
#include <random>
#include <string>
#include <vector>

#include "core/baseline.hpp"
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

}  // namespace gpuqual::testing
