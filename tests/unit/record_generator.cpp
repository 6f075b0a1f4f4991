#include "record_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "core/baseline/baseline.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/metric_summary.hpp"
#include "core/record/rack.hpp"
#include "record_builders.hpp"

namespace gpuqual::testing {

namespace {

// Healthy figures as fractions of the datasheet peaks the shipped floors use (baselines/floors/):
// GEMM 0.8 of the dense BF16 peak, memory 0.8 of the HBM bandwidth, PCIe 55 GB/s of a Gen5 x16.
struct Peaks {
  double bf16_tflops = 0;
  double hbm_gbps = 0;
};

Peaks peaks_of(const std::string& product) {
  if (product.find("H200") != std::string::npos) return {989.5, 4800};
  if (product.find("GB200") != std::string::npos) return {2250, 7700};  // baselines/floors/gb200-186gb.yaml
  return {989.5, 3350};                                                 // H100 SXM
}

// A MIG device's share of its GPU (NVIDIA MIG user guide, "Supported MIG Profiles"): SMs by
// compute slices of 7, memory by memory slices of 8 (a 3g or 4g instance holds 4 of them).
struct Share {
  double compute = 1;
  double memory = 1;
};

Share share_of(const std::string& profile) {
  std::string gi = profile;
  double compute = 0;
  if (profile.find("c.") != std::string::npos) {  // "1c.3g.71gb": a compute instance's profile
    compute = std::stod(profile.substr(0, profile.find('c')));
    gi = profile.substr(profile.find('.') + 1);
  }
  const double slices = std::stod(gi.substr(0, gi.find('g')));
  if (compute == 0) compute = slices;
  const double memory = slices == 7 ? 8 : slices >= 3 ? 4 : slices;
  return {compute / 7.0, memory / 8.0};
}

struct MigLayout {
  std::string gi_profile;
  unsigned start = 0, size = 1;
  std::uint64_t memory_gib = 0;
  std::vector<std::pair<std::string, int>> compute_instances;  // profile, SMs
};

std::vector<MigLayout> layout_of(const NodeSpec& spec) {
  switch (spec.shape) {
    case NodeShape::mig_mixed:
      return {{"1g.18gb", 0, 1, 18, {{"1g.18gb", 16}}}, {"1g.18gb", 1, 1, 18, {{"1g.18gb", 16}}}};
    case NodeShape::mig_all:
      return {{"3g.40gb", 4, 4, 40, {{"3g.40gb", 60}}},
              {"1g.10gb", 0, 1, 10, {{"1g.10gb", 16}}},
              {"1g.10gb", 1, 1, 10, {{"1g.10gb", 16}}}};
    case NodeShape::mig_compute_instances:
      return {{"3g.71gb", 0, 4, 71, {{"1c.3g.71gb", 20}, {"1c.3g.71gb", 20}, {"1c.3g.71gb", 20}}}};
    default:
      return {};
  }
}

// Which GPUs of a node of `spec` are in MIG mode: the last one of a mixed node, all of the others.
bool in_mig_mode(const NodeSpec& spec, int index) {
  if (spec.shape == NodeShape::mig_mixed) return index == spec.gpus - 1;
  return spec.shape == NodeShape::mig_all || spec.shape == NodeShape::mig_compute_instances;
}

CheckResult passed_check(const std::string& name) {
  CheckResult c;
  c.name = name;
  c.status = Status::pass;
  c.started_at = "2026-11-30T12:00:00Z";
  return c;
}

CheckResult* check_of(RunRecord& r, const std::string& name) {
  for (auto& c : r.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string gpu_uuid(const NodeSpec& spec, int node, int index) {
  const std::size_t h = std::hash<std::string>{}(spec.name) & 0xffffffffu;
  return fmt::format("GPU-{:08x}-{:04x}-0000-0000-{:012x}", h, node, index);
}

}  // namespace

std::vector<NodeSpec> node_specs() {
  return {
      {"whole-h200x2", NodeShape::whole_gpu, "NVIDIA H200", 143771, 2},
      {"whole-h100x4", NodeShape::whole_gpu, "NVIDIA H100 80GB HBM3", 81559, 4},
      {"mig-mixed-h200x2", NodeShape::mig_mixed, "NVIDIA H200", 143771, 2},
      {"mig-all-h100x2", NodeShape::mig_all, "NVIDIA H100 80GB HBM3", 81559, 2},
      {"mig-ci-h200x2", NodeShape::mig_compute_instances, "NVIDIA H200", 143771, 2},
      {"vgpu-h100x2", NodeShape::vgpu, "NVIDIA H100 80GB HBM3", 81559, 2},
      {"nvl72-gb200x4", NodeShape::whole_gpu, "NVIDIA GB200", 189471, 4, true},
  };
}

const char* to_string(Mutation m) {
  switch (m) {
    case Mutation::gpu_dropped:
      return "gpu_dropped";
    case Mutation::check_failed:
      return "check_failed";
    case Mutation::unit_status_failed:
      return "unit_status_failed";
    case Mutation::unrequired_check_failed:
      return "unrequired_check_failed";
    case Mutation::stack_check_failed:
      return "stack_check_failed";
    case Mutation::gpu_uuid_duplicated:
      return "gpu_uuid_duplicated";
    case Mutation::mig_uuid_duplicated:
      return "mig_uuid_duplicated";
    case Mutation::required_check_removed:
      return "required_check_removed";
    case Mutation::class_relabelled:
      return "class_relabelled";
    case Mutation::mig_profile_relabelled:
      return "mig_profile_relabelled";
    case Mutation::mig_skip_on_whole_gpu:
      return "mig_skip_on_whole_gpu";
    case Mutation::vgpu_skip_on_bare_gpu:
      return "vgpu_skip_on_bare_gpu";
    case Mutation::gpu_lost:
      return "gpu_lost";
  }
  return "?";
}

const char* awaiting_rule(Mutation m) {
  for (const AwaitingRule& a : kAwaitingOtherBranches) {
    if (a.mutation == m) return a.rule;
  }
  return nullptr;
}

Metric RecordGenerator::sampled(const std::string& name, const std::string& unit, double value,
                                std::optional<int> gpu, const std::string& mig_device) {
  std::normal_distribution<double> noise(1.0, 0.003);
  std::vector<double> samples;
  for (int i = 0; i < 5; ++i) samples.push_back(value * noise(rng_));
  Metric m = summarize_metric(name, unit, Direction::higher, gpu, std::move(samples));
  m.mig_device = mig_device;
  return m;
}

// gemm, hbm and pcie of GPU `g`: of the GPU itself, or of each of its MIG devices.
void RecordGenerator::add_gpu_figures(const NodeSpec& spec, const GpuInfo& g, RunRecord& r) {
  const Peaks peaks = peaks_of(spec.product);
  std::uniform_real_distribution<double> node_spread(0.99, 1.01);
  const double spread = node_spread(rng_);
  auto add = [&](const Share& s, const std::string& mig) {
    check_of(r, "gemm")->metrics.push_back(
        sampled("gemm.bf16.tflops", "TFLOP/s", 0.8 * peaks.bf16_tflops * s.compute * spread, g.index, mig));
    check_of(r, "hbm")->metrics.push_back(
        sampled("hbm.copy.gbps", "GB/s", 0.8 * peaks.hbm_gbps * s.memory * spread, g.index, mig));
    check_of(r, "pcie")->metrics.push_back(sampled("pcie.h2d.gbps", "GB/s", 55 * spread, g.index, mig));
    for (const char* check : {"gemm", "hbm", "pcie"})
      check_of(r, check)->per_gpu.push_back(GpuCheckStatus{g.index, Status::pass, "", "", mig});
  };
  if (!g.mig || !g.mig->current) {
    add(Share{}, "");
    return;
  }
  for (const MigGpuInstance& gi : g.mig->gpu_instances) {
    for (const MigComputeInstance& ci : gi.compute_instances) add(share_of(ci.profile), ci.uuid);
  }
}

namespace {

// The checks the class's shipped floors require (baselines/floors/<class>.yaml): a record without
// one must never pass. A Grace superchip's class (GB200) leaves pcie optional: its GPU reaches
// host memory over NVLink-C2C.
std::vector<std::string> floor_required_checks(const std::string& slug) {
  const Baseline floors =
      load_baseline(std::string(GPUQUAL_SOURCE_DIR) + "/baselines/floors/" + slug + ".yaml");
  std::vector<std::string> out;
  for (const auto& [name, expectation] : floors.checks) {
    if (expectation.required) out.push_back(name);
  }
  return out;
}

}  // namespace

RunRecord RecordGenerator::healthy_record(const NodeSpec& spec, int node, int run) {
  RunRecord r = make_record(0);
  r.run_id = fmt::format("run-{}-n{}-r{}", spec.name, node, run);
  r.started_at = fmt::format("2026-11-{:02}T12:00:00Z", 10 + run);
  r.ended_at = fmt::format("2026-11-{:02}T12:03:00Z", 10 + run);
  r.node.hostname = fmt::format("{}-node-{}", spec.name, node);
  r.node.k8s_node_name = r.node.hostname;
  r.node.pci_gpus = std::vector<PciGpu>{};
  for (int i = 0; i < spec.gpus; ++i) {
    GpuInfo g = make_gpu(i, spec.product, spec.memory_mib << 20);
    g.uuid = gpu_uuid(spec, node, i);
    g.virtualization_mode = spec.shape == NodeShape::vgpu ? "vgpu" : "none";
    if (in_mig_mode(spec, i)) {
      MigState mig;
      mig.current = mig.pending = true;
      unsigned gi_id = 1;
      for (const MigLayout& l : layout_of(spec)) {
        MigGpuInstance gi{gi_id++, l.gi_profile, l.start, l.size, l.memory_gib << 30, {}};
        unsigned ci_id = 0;
        for (const auto& [profile, sms] : l.compute_instances) {
          const std::string uuid = fmt::format("MIG-{}-{:x}{:x}{:x}", g.uuid.substr(4, 13), i, gi.id, ci_id);
          gi.compute_instances.push_back(MigComputeInstance{ci_id++, profile, uuid, sms});
        }
        mig.gpu_instances.push_back(std::move(gi));
      }
      g.mig = std::move(mig);
      g.mig_enabled = true;
    }
    r.node.pci_gpus->push_back(PciGpu{g.pci_bus_id.substr(4), "0x2335", "0x030200", "nvidia"});
    r.gpus.push_back(std::move(g));
  }
  r.hardware_class = derive_hardware_class(r.gpus);
  r.node.k8s_labels["nvidia.com/gpu.count"] = std::to_string(spec.gpus);
  if (spec.rack) r.node.k8s_labels[kCliqueLabel] = "8f3c1e2a-5b6d-4e7f-9a0b-" + spec.name + ".1";
  r.node.stack = make_stack(spec.gpus);
  for (std::size_t i = 0; i < r.gpus.size(); ++i) r.node.stack->gpu_firmware[i].uuid = r.gpus[i].uuid;
  r.node.stack->stack_check = StackCheckSummary{"pass", {}, false, "none", "containerd; mode cdi"};

  CheckResult health = passed_check("health");
  for (const GpuInfo& g : r.gpus) health.per_gpu.push_back(GpuCheckStatus{g.index, Status::pass, "", ""});
  r.checks = {health, passed_check("gemm"), passed_check("hbm"), passed_check("pcie")};
  for (const GpuInfo& g : r.gpus) add_gpu_figures(spec, g, r);
  // p2p: not required by any class; it runs among whole GPUs and skips where it cannot apply.
  CheckResult p2p = passed_check("p2p");
  if (spec.shape == NodeShape::mig_all || spec.shape == NodeShape::mig_compute_instances) {
    p2p.status = Status::skip;
    p2p.reason = "every selected GPU is in MIG mode";
    p2p.reason_code = "mig_instance";
  } else if (spec.shape == NodeShape::vgpu) {
    p2p.status = Status::skip;
    p2p.reason = "vGPU guest";
    p2p.reason_code = "vgpu_guest";
  }
  r.checks.push_back(p2p);
  return r;
}

namespace {

// Everything of GPU `index` leaves the record; the node's own sources (label, PCI bus) still count it.
void drop_gpu(RunRecord& r, int index) {
  std::erase_if(r.gpus, [&](const GpuInfo& g) { return g.index == index; });
  for (CheckResult& c : r.checks) {
    std::erase_if(c.per_gpu, [&](const GpuCheckStatus& s) { return s.gpu == index; });
    std::erase_if(c.metrics, [&](const Metric& m) { return m.gpu == index; });
    std::erase_if(c.findings, [&](const Finding& f) { return f.gpu == index; });
  }
  if (r.node.stack) std::erase_if(r.node.stack->gpu_firmware, [&](const auto& f) { return f.gpu == index; });
  r.hardware_class.gpu_count = static_cast<int>(r.gpus.size());
}

// All MIG devices of `r`: (GPU, GPU instance, compute instance).
std::vector<std::tuple<GpuInfo*, MigGpuInstance*, MigComputeInstance*>> mig_devices(RunRecord& r) {
  std::vector<std::tuple<GpuInfo*, MigGpuInstance*, MigComputeInstance*>> out;
  for (GpuInfo& g : r.gpus) {
    if (!g.mig || !g.mig->current) continue;
    for (MigGpuInstance& gi : g.mig->gpu_instances) {
      for (MigComputeInstance& ci : gi.compute_instances) out.emplace_back(&g, &gi, &ci);
    }
  }
  return out;
}

// Every figure of MIG device `from` is said of `to`.
void rename_mig_device(RunRecord& r, const std::string& from, const std::string& to) {
  for (CheckResult& c : r.checks) {
    for (GpuCheckStatus& s : c.per_gpu) {
      if (s.mig_device == from) s.mig_device = to;
    }
    for (Metric& m : c.metrics) {
      if (m.mig_device == from) m.mig_device = to;
    }
  }
}

const GpuInfo* whole_gpu(const RunRecord& r) {
  for (const GpuInfo& g : r.gpus) {
    if (!g.mig || !g.mig->current) return &g;
  }
  return nullptr;
}

void set_health_skip(RunRecord& r, int gpu, const std::string& code, const std::string& why) {
  for (GpuCheckStatus& s : check_of(r, "health")->per_gpu) {
    if (s.gpu == gpu) s = GpuCheckStatus{gpu, Status::skip, why, code};
  }
}

}  // namespace

void RecordGenerator::add_status_mutants(const RunRecord& healthy, std::vector<Mutant>& out) {
  for (const CheckResult& c : healthy.checks) {
    RunRecord r = healthy;
    CheckResult& mc = *check_of(r, c.name);
    mc.status = Status::fail;
    mc.reason = "generated failure";
    mc.reason_code.clear();
    out.push_back({Mutation::check_failed, "check " + c.name + " failed", std::move(r)});
    if (c.per_gpu.empty()) continue;
    RunRecord rr = healthy;
    CheckResult& per_gpu = *check_of(rr, c.name);
    std::uniform_int_distribution<std::size_t> any(0, per_gpu.per_gpu.size() - 1);
    GpuCheckStatus& s = per_gpu.per_gpu[any(rng_)];
    s.status = Status::fail;
    s.reason = "generated failure";
    s.reason_code.clear();
    const std::string where = fmt::format("GPU {}{}", s.gpu, s.mig_device.empty() ? "" : " " + s.mig_device);
    out.push_back(
        {Mutation::unit_status_failed, "check " + c.name + " on " + where + " failed", std::move(rr)});
  }
  for (const std::string& required : floor_required_checks(healthy.hardware_class.slug)) {
    RunRecord r = healthy;
    std::erase_if(r.checks, [&](const CheckResult& x) { return x.name == required; });
    out.push_back({Mutation::required_check_removed, "check " + required + " removed", std::move(r)});
  }
  // Optional forgives a skip, never a failure (docs/compare.md, "No false pass").
  RunRecord extra = healthy;
  CheckResult telemetry = passed_check("telemetry");
  telemetry.optional = true;
  telemetry.status = Status::fail;
  telemetry.reason = "generated failure of a check nothing requires";
  extra.checks.push_back(telemetry);
  out.push_back({Mutation::unrequired_check_failed, "optional check telemetry failed", std::move(extra)});
  RunRecord r = healthy;
  r.node.stack->stack_check->status = "fail";
  r.node.stack->stack_check->findings = {"stack.runtime_missing"};
  out.push_back({Mutation::stack_check_failed, "node.stack.stack_check.status fail", std::move(r)});
}

void RecordGenerator::add_identity_mutants(const RunRecord& healthy, std::vector<Mutant>& out) {
  const int n_gpus = static_cast<int>(healthy.gpus.size());
  std::uniform_int_distribution<int> any_gpu(0, n_gpus - 1);
  const int gpu = any_gpu(rng_);
  RunRecord dropped = healthy;
  drop_gpu(dropped, gpu);
  out.push_back({Mutation::gpu_dropped, fmt::format("GPU {} dropped", gpu), std::move(dropped)});
  if (n_gpus >= 2) {
    RunRecord r = healthy;
    r.gpus[1].uuid = r.gpus[0].uuid;
    out.push_back({Mutation::gpu_uuid_duplicated, "GPU 1 has GPU 0's UUID", std::move(r)});
  }
  RunRecord relabelled = healthy;
  relabelled.hardware_class.slug =
      relabelled.hardware_class.slug.rfind("h200", 0) == 0 ? "h100-sxm-80gb" : "h200-sxm-141gb";
  out.push_back({Mutation::class_relabelled, "class relabelled " + relabelled.hardware_class.slug,
                 std::move(relabelled)});
  RunRecord lost = healthy;
  const int lost_gpu = any_gpu(rng_);
  Finding f;
  f.code = "nvml.readings_unavailable";
  f.severity = Severity::info;
  f.gpu = lost_gpu;
  f.value = 1;
  f.detail = fmt::format("GPU {}: not read: temperature: NVML_ERROR_GPU_IS_LOST", lost_gpu);
  check_of(lost, "health")->findings.push_back(f);
  out.push_back({Mutation::gpu_lost, fmt::format("GPU {} lost (GPU_IS_LOST) as health records it", lost_gpu),
                 std::move(lost)});
}

void RecordGenerator::add_partition_mutants(const RunRecord& healthy, std::vector<Mutant>& out) {
  RunRecord r = healthy;
  auto devices = mig_devices(r);
  if (devices.size() >= 2) {
    const std::string first = std::get<2>(devices[0])->uuid, second = std::get<2>(devices[1])->uuid;
    std::get<2>(devices[1])->uuid = first;
    rename_mig_device(r, second, first);
    out.push_back({Mutation::mig_uuid_duplicated, "two MIG devices under " + first, std::move(r)});
  }
  if (!devices.empty()) {
    RunRecord p = healthy;
    auto [g, gi, ci] = mig_devices(p).front();
    // A smaller instance's floors would pass a bigger one's figures: the label must be refused.
    const std::string from = gi->profile;
    const std::string to = from.rfind("1g.", 0) == 0 ? (from == "1g.18gb" ? "7g.141gb" : "7g.80gb")
                                                     : (from == "3g.71gb" ? "1g.18gb" : "1g.10gb");
    gi->profile = to;
    for (MigComputeInstance& c : gi->compute_instances) c.profile = to;
    out.push_back({Mutation::mig_profile_relabelled,
                   fmt::format("GPU {} instance {} relabelled {}", g->index, from, to), std::move(p)});
    if (const GpuInfo* whole = whole_gpu(healthy)) {
      RunRecord s = healthy;
      set_health_skip(s, whole->index, "mig_instance", "GPU in MIG mode");
      out.push_back({Mutation::mig_skip_on_whole_gpu,
                     fmt::format("health of whole GPU {} skipped mig_instance", whole->index), std::move(s)});
    }
  }
  const bool vgpu = std::any_of(healthy.gpus.begin(), healthy.gpus.end(),
                                [](const GpuInfo& g) { return g.virtualization_mode == "vgpu"; });
  if (vgpu && healthy.gpus.size() >= 2) {
    RunRecord v = healthy;
    v.gpus[1].virtualization_mode = "none";
    set_health_skip(v, v.gpus[1].index, "vgpu_guest", "vGPU guest: NVML does not provide GPU 1: ecc_mode");
    out.push_back(
        {Mutation::vgpu_skip_on_bare_gpu, "health of bare-metal GPU 1 skipped vgpu_guest", std::move(v)});
  }
}

std::vector<Mutant> RecordGenerator::mutants(const RunRecord& healthy) {
  std::vector<Mutant> out;
  add_identity_mutants(healthy, out);
  add_status_mutants(healthy, out);
  add_partition_mutants(healthy, out);
  return out;
}

}  // namespace gpuqual::testing
