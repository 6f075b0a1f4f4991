#pragma once
// Synthetic but realistic run records for the judging benchmarks: 8 GPUs, a few metrics per GPU
// with 20 seeded samples each (0.5 % CV), real metric names and units, and the baseline of
// their class. Written as gpuqual writes records (record_io.hpp), so the benchmarks read what a
// canary pool leaves on disk. Each record holds what earns a PASS (docs/compare.md, "What earns
// a PASS"): complete, every check of the canary suite, health and the per-GPU checks on every
// GPU, GPU UUIDs and PCI bus ids of its own, the class its GPUs give and its GPU count's sources.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/base/atomic_file.hpp"
#include "core/baseline/baseline.hpp"
#include "core/record/metric_summary.hpp"
#include "core/record/record.hpp"
#include "core/record/record_io.hpp"

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

// The canary suite's checks as a passing run writes them (suites/canary.yaml): compare requires
// every check the record's suite lists, and storage and network skip as not configured without a
// site file (a not-applicable code, README "Statuses"), as they do on a node without one; mig and
// gpu_sharing skip as not applicable on whole, unshared GPUs (docs/mig.md), which the record's
// GPUs (MIG mode read as off) and labels (no replicas) bear out.
inline void add_platform_checks(RunRecord& r, std::map<std::string, CheckResult>& checks) {
  for (const char* name : {"stack", "compat", "p2p", "nccl_allreduce", "telemetry", "storage", "network",
                           "mig", "gpu_sharing"}) {
    CheckResult& c = checks[name];
    c.name = name;
    c.status = Status::pass;
    c.started_at = r.started_at;
    c.duration_s = 2;
  }
  for (const char* name : {"storage", "network"}) {
    CheckResult& c = checks[name];
    c.status = Status::skip;
    c.reason = "no site file: nothing to reach is configured";
    c.reason_code = "not_configured";
  }
  for (const auto& [name, code] :
       {std::pair{"mig", "mig_disabled"}, std::pair{"gpu_sharing", "no_gpu_sharing"}}) {
    CheckResult& c = checks[name];
    c.status = Status::skip;
    c.reason = "whole GPUs, not partitioned or shared";
    c.reason_code = code;
  }
}

// A node's identity and the sources of its GPU count, as the inventory writes them: GPU UUIDs
// unique to the node (gate and matrix count records with shared UUIDs as one machine), one PCI
// bus id per GPU, GFD's labels and the PCI bus (docs/compare.md, "What earns a PASS").
inline void add_synthetic_gpus(RunRecord& r, int node, int gpus) {
  r.hardware_class = {"h200-sxm-141gb", gpus, "NVIDIA-H200", 143771, false};
  r.node.k8s_labels = {{"nvidia.com/gpu.product", "NVIDIA-H200"},
                       {"nvidia.com/gpu.memory", "143771"},
                       {"nvidia.com/gpu.count", std::to_string(gpus)}};
  r.node.boot_id = fmt::format("b0070000-0000-4000-8000-{:012x}", static_cast<unsigned>(node));
  r.node.uptime_s = 86400;
  std::vector<PciGpu> bus;
  for (int g = 0; g < gpus; ++g) {
    GpuInfo gi;
    gi.index = g;
    gi.name = "NVIDIA H200";
    gi.uuid =
        fmt::format("GPU-{:08x}-{:04x}-4000-8000-{:012x}", node, g, static_cast<unsigned>(node * 8 + g));
    gi.pci_bus_id = fmt::format("00000000:{:02x}:00.0", 0x18 + g * 0x10);
    gi.compute_capability = "9.0";
    gi.sm_count = 132;
    gi.memory_bytes = 143771ull << 20;
    gi.ecc_enabled = true;
    gi.vbios = "96.00.A5.00.01";
    r.gpus.push_back(gi);
    bus.push_back({gi.pci_bus_id.substr(4), "0x2335", "0x030200", "nvidia"});
  }
  r.node.pci_gpus = std::move(bus);
}

// A healthy, complete canary run of node `node`: it passes synthetic_baseline (the benchmarks'
// guards hold that), so what is timed is the pass path, every rule of it.
inline RunRecord synthetic_record(int node, int per_gpu, std::uint64_t seed, int gpus = 8, int samples = 20) {
  std::mt19937_64 rng(seed * 1000003u + static_cast<std::uint64_t>(node));
  RunRecord r;
  r.tool = {"0.1.0", "bench"};
  r.run_id = fmt::format("bench-{:05d}-{}", node, seed);
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
  add_synthetic_gpus(r, node, gpus);
  const auto specs = metric_specs(per_gpu);
  std::normal_distribution<double> jitter(1.0, 0.005);
  std::map<std::string, CheckResult> checks;
  // Health, GEMM, HBM and PCIe report each GPU (the baseline requires them on every GPU).
  for (const char* name : {"health", "gemm", "hbm", "pcie"}) {
    CheckResult& c = checks[name];
    c.name = name;
    c.status = Status::pass;
    c.started_at = r.started_at;
    c.duration_s = 10;
    for (int g = 0; g < gpus; ++g) c.per_gpu.push_back({g, Status::pass, "", ""});
  }
  for (int g = 0; g < gpus; ++g) {
    for (int i = 0; i < per_gpu; ++i) {
      const MetricSpec& s = specs[static_cast<std::size_t>(i)];
      std::vector<double> v;
      for (int k = 0; k < samples; ++k) v.push_back(s.level * jitter(rng));
      checks[s.check].metrics.push_back(
          summarize_metric(metric_name(s, i), s.unit, s.direction, g, std::move(v)));
    }
  }
  add_platform_checks(r, checks);
  for (auto& [name, c] : checks) r.checks.push_back(std::move(c));
  return r;
}

// The record with GPU `gpu`'s metrics of `check` scaled by `factor` (0.9: 10 % slower for a
// higher-is-better metric), their summaries recomputed: a record that must fail on those rows.
inline RunRecord slowed(RunRecord r, const std::string& check, int gpu, double factor) {
  for (auto& c : r.checks) {
    if (c.name != check) continue;
    for (auto& m : c.metrics) {
      if (m.gpu != gpu) continue;
      const double f = m.direction == Direction::higher ? factor : 1.0 / factor;
      std::vector<double> v = m.samples;
      for (double& x : v) x *= f;
      m = summarize_metric(m.name, m.unit, m.direction, m.gpu, std::move(v));
    }
  }
  return r;
}

// A baseline of the class as `baseline build` writes one: the node's GPU count, and health, GEMM,
// HBM and PCIe required on every GPU (docs/baselines.md, "What a class must measure").
inline Baseline synthetic_baseline(int per_gpu, int gpus = 8) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  b.gpu_count = gpus;
  b.provenance.source = "synthetic, for benchmarks";
  b.provenance.runs = 1;
  b.origin = "synthetic-h200.yaml";
  for (const char* check : {"health", "gemm", "hbm", "pcie"})
    b.checks[check] = CheckExpectation{false, true, true};
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
