// `health`: is the node's GPU hardware healthy, by NVML? ECC mode and counters, page
// retirement / row remapping, clock event ("throttle") reasons sampled over a window, the
// temperature against the slowdown threshold, the power limit against the default, the PCIe
// link read while host<->device copies run, PCIe replays, NVLink state and error counters, the
// GPU count, counters that grew during the window (or since the run's start snapshot), and Xid
// events seen meanwhile. Severities and actions come from baselines/health-findings.yaml and
// baselines/xid-severity.yaml (docs/health.md).
//
// Parameters (suite YAML): sample_s (2), interval_s (0.2), pcie_load (true), load_wait_s (10), expect_gpus,
// expect_ecc (true), temp_margin_c (5), severity_overrides (path; else $GPUQUAL_HEALTH_OVERRIDES),
// tables_dir (path), before_snapshot (path of a snapshot taken at the start of the run; default
// <side_dir>/nvml-before.json when it exists).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/base/atomic_file.hpp"
#include "core/base/json_fields.hpp"
#include "core/record/hardware_class.hpp"
#include "core/rules/health_core_fields.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_sampling.hpp"
#include "core/rules/health_severity.hpp"
#include "core/rules/health_snapshot_json.hpp"
#include "device/monitor/xid_monitor.hpp"
#include "device/nvml/nvml_library.hpp"
#include "device/nvml/nvml_snapshot.hpp"
#include "device/pcie/pcie_traffic.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

struct HealthParams {
  double sample_s = 2.0;
  double interval_s = 0.2;
  bool pcie_load = true;
  double load_wait_s = 10;  // longest wait for every traffic worker's first copy
  HealthPolicy policy;
  std::string severity_overrides;
  std::string tables_dir;
  std::string before_snapshot;
};

HealthParams read_health_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  HealthParams p;
  if (auto v = o.opt_number("sample_s", 0, 3600)) p.sample_s = *v;
  if (auto v = o.opt_number("interval_s", 0.01, 60)) p.interval_s = *v;
  if (auto v = o.opt_boolean("pcie_load")) p.pcie_load = *v;
  if (auto v = o.opt_number("load_wait_s", 0, 600)) p.load_wait_s = *v;
  if (auto v = o.opt_integer("expect_gpus", 0, 1024)) p.policy.expect_gpus = static_cast<int>(*v);
  if (auto v = o.opt_boolean("expect_ecc")) p.policy.expect_ecc = *v;
  if (auto v = o.opt_integer("expect_nvlinks", 0, 64)) p.policy.expect_nvlinks = static_cast<int>(*v);
  if (auto v = o.opt_integer("temp_margin_c", 0, 50)) p.policy.temp_margin_c = static_cast<int>(*v);
  p.severity_overrides = o.str_or("severity_overrides", "");
  p.tables_dir = o.str_or("tables_dir", "");
  p.before_snapshot = o.str_or("before_snapshot", "");
  o.finish();
  if (p.severity_overrides.empty()) {
    if (const char* env = std::getenv(kHealthOverridesEnv); env && *env) p.severity_overrides = env;
  }
  return p;
}

// Accumulated samples (throttle counts, hottest temperature, highest link) move onto the final
// snapshot, whose counters are the "after" reading.
void carry_samples(const HealthSnapshot& sampled, HealthSnapshot& after) {
  for (std::size_t i = 0; i < after.gpus.size() && i < sampled.gpus.size(); ++i) {
    const GpuHealthReading& s = sampled.gpus[i];
    GpuHealthReading& a = after.gpus[i];
    a.throttle_reasons = s.throttle_reasons;
    a.throttle_samples = s.throttle_samples;
    a.hw_slowdown_samples = s.hw_slowdown_samples;
    a.hw_thermal_samples = s.hw_thermal_samples;
    a.hw_power_brake_samples = s.hw_power_brake_samples;
    a.sw_thermal_samples = s.sw_thermal_samples;
    a.sw_power_cap_samples = s.sw_power_cap_samples;
    a.temperature_c = s.temperature_c;
    a.pcie_gen = s.pcie_gen;
    a.pcie_width = s.pcie_width;
    a.pcie_read_under_load = s.pcie_read_under_load;
    // Only sampling reads the link, so only it can say why the link was not read.
    for (const auto& u : s.unread) {
      if (u.starts_with("pcie_link:") && std::find(a.unread.begin(), a.unread.end(), u) == a.unread.end())
        a.unread.push_back(u);
    }
  }
}

// What NVLink to expect from the inventory: a PCIe part has no fabric; a node of one GPU (a GPU
// passed alone into a VM) may sit in a partition without its NVSwitches; a GPU of a class
// listed in <tables dir>/nvlink-expected.yaml has that class's links (core/rules/gpu_fabric.hpp).
void nvlink_expectations(const std::vector<GpuInfo>& gpus, const std::string& tables_dir,
                         HealthPolicy& policy, CheckResult& r) {
  policy.single_gpu_partition = gpus.size() == 1;
  const std::string path = tables_dir + "/" + kNvLinkExpectedFile;
  NvLinkClassTable classes;
  if (std::filesystem::exists(path)) {
    classes = load_nvlink_expectations(path);
    r.attributes["nvlink_expectations"] = path;
  }
  for (const auto& g : gpus) {
    const std::string slug = hardware_class_slug(g.name, g.memory_bytes >> 20);
    if (slug.find("-pcie-") != std::string::npos) policy.no_nvlink_fabric.insert(g.index);
    if (auto it = classes.find(slug); it != classes.end()) policy.nvlink_by_gpu[g.index] = it->second;
  }
}

// The severity tables the findings are rated with, with the operator's overrides.
SeverityTable load_health_tables(const HealthParams& p, CheckResult& r) {
  SeverityTable table = load_severity_tables(severity_tables_dir(p.tables_dir), health_finding_codes());
  if (!p.severity_overrides.empty()) load_severity_overrides(table, p.severity_overrides);
  std::string tables;
  for (const auto& o : table.origins) tables += (tables.empty() ? "" : ", ") + o;
  r.attributes["severity_tables"] = tables;
  return table;
}

// Samples over the window, with copies on the GPUs this check covers so the link is read while
// carrying traffic; sampling starts once every worker has copied (core/rules/health_sampling.hpp).
void sample_window(const CheckContext& ctx, const HealthParams& p, NvmlHealthReader& reader,
                   PcieTraffic& traffic, HealthSnapshot& sampled, CheckResult& r) {
  LoadedSamplingSteps steps;
  if (p.pcie_load && !ctx.gpus.empty()) {
    steps.start_load = [&] { traffic.start(ctx.gpus); };
    steps.load_ready = [&] { return traffic.all_copied(); };
    steps.stop_load = [&] { traffic.stop(); };
  }
  steps.take_sample = [&] { reader.sample(sampled); };
  steps.should_stop = [&] { return ctx.should_stop(); };
  steps.now_s = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  steps.sleep_s = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  const double budget = std::min(p.sample_s, std::max(0.0, ctx.budget_s * 0.8));
  // Creating a context on each GPU takes up to seconds on a large node; past that, sample anyway.
  const LoadedSamplingReport sampling = sample_while_loaded(steps, budget, p.interval_s, p.load_wait_s);
  if (steps.start_load) {
    r.attributes["pcie_load_wait_s"] = fmt::format("{:.3f}{}", sampling.waited_for_load_s,
                                                   sampling.load_ready ? "" : " (not every worker copied)");
  }
}

// Which GPUs' links were read under load, and why the others were not.
void note_pcie_load(const CheckContext& ctx, const HealthParams& p, const PcieTraffic& traffic,
                    HealthSnapshot& sampled, CheckResult& r) {
  const std::vector<int> loaded = traffic.loaded();
  for (auto& g : sampled.gpus) {
    g.pcie_read_under_load = std::find(loaded.begin(), loaded.end(), g.index) != loaded.end();
  }
  std::string load_note =
      p.pcie_load ? (ctx.gpus.empty() ? "off: no GPU assigned" : "on") : "off (pcie_load: false)";
  for (const auto& [gpu, why] : traffic.failures()) load_note += "; GPU " + std::to_string(gpu) + ": " + why;
  r.attributes["pcie_load"] = load_note;
}

// The snapshot counters grow from: the run's start when the runner left one (or the suite names
// one), else "" for this check's own first reading.
std::string run_start_snapshot(const HealthParams& p, const CheckContext& ctx) {
  std::string before_path = p.before_snapshot;
  if (before_path.empty() && !ctx.side_dir.empty()) {
    std::error_code ec;
    const std::string candidate = ctx.side_dir + "/nvml-before.json";
    if (std::filesystem::is_regular_file(candidate, ec)) before_path = candidate;
  }
  return before_path;
}

void take_evaluation(HealthEvaluation ev, const HealthSnapshot& after, CheckResult& r) {
  if (!ev.not_applicable.empty()) {
    r.attributes["not_applicable"] = fmt::format("{}", fmt::join(ev.not_applicable, "; "));
  }
  r.status = ev.status;
  r.reason = ev.reason;
  r.reason_code = ev.reason_code;
  r.findings = std::move(ev.findings);
  r.per_gpu = std::move(ev.per_gpu);
  r.attributes["driver_version"] = after.driver_version;
  r.attributes["samples"] = std::to_string(after.gpus.empty() ? 0 : after.gpus.front().throttle_samples);
}

class HealthCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    CheckResult r;
    r.name = "health";
    HealthParams p = read_health_params(ctx.params);
    nvlink_expectations(ctx.node_gpus, severity_tables_dir(p.tables_dir), p.policy, r);
    const SeverityTable table = load_health_tables(p, r);

    NvmlSession nvml = NvmlSession::open();
    if (!nvml.ok()) {
      r.status = Status::skip;
      r.reason = "NVML unavailable: " + nvml.reason();
      return r;
    }
    NvmlHealthReader reader(nvml, ctx.node_gpus);
    XidMonitor xids(ctx.node_gpus);
    const bool watching = xids.start();
    r.attributes["xid_capture"] = watching ? "on" : "off: " + xids.reason();
    if (watching) xids.set_running_check("health");

    HealthSnapshot before = reader.read();
    HealthSnapshot sampled = before;
    PcieTraffic traffic;
    sample_window(ctx, p, reader, traffic, sampled, r);
    note_pcie_load(ctx, p, traffic, sampled, r);

    HealthSnapshot after = reader.read();
    carry_samples(sampled, after);
    after.xids = xids.stop();

    // Growth since the run's start when the runner left a snapshot, else over this window.
    const std::string before_path = run_start_snapshot(p, ctx);
    HealthSnapshot run_before;
    const HealthSnapshot* base = &before;
    if (!before_path.empty()) {
      run_before = load_health_snapshot(before_path);
      base = &run_before;
      r.attributes["counters_since"] = before_path;
    } else {
      r.attributes["counters_since"] = "start of the health check";
    }

    // A watch that was off, that lost a GPU when it registered, or whose waits failed had a
    // gap: the health check does not pass on it (core/rules/health_rules.hpp).
    std::string gap = xids.wait_failure().empty() ? "" : "waits failed: " + xids.wait_failure();
    if (!watching) {
      gap = xids.reason().empty() ? "not started" : xids.reason();
    } else if (nvml_answer_lost(xids.reason())) {
      gap = xids.reason() + (gap.empty() ? "" : "; " + gap);
    }
    if (!gap.empty()) p.policy.xid_watch_off = gap;
    take_evaluation(evaluate_health(after, base, p.policy, table), after, r);

    if (!ctx.side_dir.empty()) {
      const std::string path = ctx.side_dir + "/nvml-health.json";
      write_file_atomic(path, to_json(after).dump(1) + "\n");
      r.attributes["snapshot"] = path;
    }
    return r;
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(HealthCheck, "health",
                       "NVML health: ECC, row remap/page retirement, throttling, temperature, power limit, "
                       "PCIe link under load, NVLink, GPU count, Xid events");

}  // namespace gpuqual
