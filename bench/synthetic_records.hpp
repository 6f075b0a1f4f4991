#pragma once
// Synthetic but realistic run records for the judging benchmarks: 8 GPUs, a few metrics per GPU
// with 20 seeded samples each (0.5 % CV), real metric names and units, and the baseline of
// their class. Written as gpuqual writes records (record_io.hpp), so the benchmarks read what a
// canary pool leaves on disk.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/baseline.hpp"
#include "core/metric_summary.hpp"
#include "core/record.hpp"
#include "core/record_io.hpp"

namespace gpuqual::bench {

struct MetricSpec {
  const char* check;
  const char* name;
  const char* unit;
  double level;
  Direction direction;
};

// The canary suite's per-GPU metrics; more than five per GPU repeat them with a suffix.
inline std::vector<MetricSpec> metric_specs(int per_gpu) {
  static const MetricSpec base[] = {
      {"gemm", "gemm.bf16.tflops", "TFLOP/s", 760.0, Direction::higher},
      {"gemm", "gemm.fp8.tflops", "TFLOP/s", 1500.0, Direction::higher},
      {"hbm", "hbm.triad.gbps", "GB/s", 4300.0, Direction::higher},
      {"pcie", "pcie.h2d.gbps", "GB/s", 53.0, Direction::higher},
      {"pcie", "pcie.latency.us", "us", 2.1, Direction::lower},
  };
  std::vector<MetricSpec> out;
  for (int i = 0; i < per_gpu; ++i) out.push_back(base[i % 5]);
  return out;
}

inline std::string metric_name(const MetricSpec& s, int i) {
  return i < 5 ? s.name : fmt::format("{}.v{}", s.name, i / 5);
}

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

inline RunRecord synthetic_record(int node, int per_gpu, std::uint64_t seed, int gpus = 8, int samples = 20) {
  std::mt19937_64 rng(seed * 1000003u + static_cast<std::uint64_t>(node));
  RunRecord r;
  r.tool = {"0.1.0", "bench"};
  r.run_id = fmt::format("bench-{:05d}", node);
  r.started_at = "2026-11-30T12:00:00Z";
  r.ended_at = "2026-11-30T12:03:00Z";
  r.complete = true;
  r.argv = {"gpuqual", "run", "--suite", "canary"};
  r.suite = "canary";
  r.node.hostname = fmt::format("gpu-node-{:05d}", node);
  // Each node its own Kubernetes name: gate keeps the newest record of a node, so a pool that
  // shares one name would time de-duplication, not judging.
  r.node.k8s_node_name = r.node.hostname;
  r.node.kernel = "6.8.0-45-generic";
  r.node.os = "Ubuntu 24.04.1 LTS";
  r.node.driver_version = "570.133.20";
  r.node.cuda_driver_version = "12.8";
  r.node.cuda_runtime_version = "13.0";
  r.node.cublas_version = "13.0.0";
  r.node.nccl_version = "2.28.3";
  r.node.container_runtimes = {"containerd 2.0.0"};
  r.hardware_class = {"h200-sxm-141gb", gpus, "NVIDIA-H200", 143771, false};
  for (int g = 0; g < gpus; ++g) {
    GpuInfo gi;
    gi.index = g;
    gi.name = "NVIDIA H200";
    gi.uuid = fmt::format("GPU-{:08x}-{:04x}-4000-8000-{:012x}", node, g, static_cast<unsigned>(node * 8 + g));
    gi.pci_bus_id = fmt::format("00000000:{:02x}:00.0", 0x18 + g * 0x10);
    gi.compute_capability = "9.0";
    gi.sm_count = 132;
    gi.memory_bytes = 143771ull << 20;
    gi.ecc_enabled = true;
    gi.vbios = "96.00.A5.00.01";
    r.gpus.push_back(gi);
  }
  const auto specs = metric_specs(per_gpu);
  std::normal_distribution<double> jitter(1.0, 0.005);
  std::map<std::string, CheckResult> checks;
  for (int g = 0; g < gpus; ++g) {
    for (int i = 0; i < per_gpu; ++i) {
      const MetricSpec& s = specs[static_cast<std::size_t>(i)];
      std::vector<double> v;
      for (int k = 0; k < samples; ++k) v.push_back(s.level * jitter(rng));
      CheckResult& c = checks[s.check];
      c.name = s.check;
      c.status = Status::pass;
      c.started_at = r.started_at;
      c.duration_s = 10;
      c.metrics.push_back(summarize_metric(metric_name(s, i), s.unit, s.direction, g, std::move(v)));
    }
  }
  for (auto& [name, c] : checks) r.checks.push_back(std::move(c));
  return r;
}

inline Baseline synthetic_baseline(int per_gpu, int gpus = 8) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  b.gpu_count = gpus;
  b.provenance.source = "synthetic, for benchmarks";
  b.provenance.runs = 1;
  b.origin = "synthetic-h200.yaml";
  const auto specs = metric_specs(per_gpu);
  for (int i = 0; i < per_gpu; ++i) {
    MetricExpectation e;
    e.name = metric_name(specs[static_cast<std::size_t>(i)], i);
    e.unit = specs[static_cast<std::size_t>(i)].unit;
    e.direction = specs[static_cast<std::size_t>(i)].direction;
    e.expected = specs[static_cast<std::size_t>(i)].level;
    e.tolerance = 0.05;
    b.metrics.push_back(e);
  }
  return b;
}

// A temporary directory with `n` record files and the baseline, removed when it goes away.
class RecordDir {
 public:
  RecordDir(int n, int per_gpu, int gpus = 8) : per_gpu_(per_gpu) {
    namespace fs = std::filesystem;
    char tmpl[] = "/tmp/gpuqual-bench-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    fs::create_directories(fs::path(dir_) / "records");
    for (int i = 0; i < n; ++i) {
      const std::string p = fmt::format("{}/records/node-{:05d}.json", dir_, i);
      write_record(p, synthetic_record(i, per_gpu, 42, gpus));
      paths_.push_back(p);
    }
    baseline_path_ = dir_ + "/h200-sxm-141gb.yaml";
    write_file_atomic(baseline_path_, baseline_to_yaml(synthetic_baseline(per_gpu, gpus)));
  }
  ~RecordDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  RecordDir(const RecordDir&) = delete;
  RecordDir& operator=(const RecordDir&) = delete;
  const std::vector<std::string>& paths() const { return paths_; }
  std::string records_dir() const { return dir_ + "/records"; }
  const std::string& baseline_path() const { return baseline_path_; }
  int per_gpu() const { return per_gpu_; }

 private:
  std::string dir_;
  std::string baseline_path_;
  std::vector<std::string> paths_;
  int per_gpu_;
};

}  // namespace gpuqual::bench
