#include "core/rules/health_rules.hpp"

#include "core/rules/health_core_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

namespace gpuqual {

namespace {

class FindingSink {
 public:
  FindingSink(const SeverityTable& table, std::vector<Finding>& out) : table_(table), out_(out) {}

  void add(const std::string& code, std::optional<int> gpu, std::string detail,
           std::optional<double> value = {}) {
    const SeverityRule& rule = table_.finding(code);
    out_.push_back(Finding{
        .code = code,
        .severity = rule.severity,
        .gpu = gpu,
        .detail = std::move(detail),
        .action = rule.action,
        .value = value,
    });
  }

 private:
  const SeverityTable& table_;
  std::vector<Finding>& out_;
};

std::string gpu_label(const GpuHealthReading& g) {
  return g.name.empty() ? fmt::format("GPU {}", g.index) : fmt::format("GPU {} ({})", g.index, g.name);
}

bool positive(const std::optional<std::uint64_t>& v) { return v && *v > 0; }

// Compute capability major version, 0 when unknown.
int cc_major(const std::string& cc) {
  try {
    return cc.empty() ? 0 : std::stoi(cc);
  } catch (const std::exception&) {
    return 0;
  }
}

void ecc_rules(const GpuHealthReading& g, const HealthPolicy& p, FindingSink& sink) {
  const std::string who = gpu_label(g);
  if (p.expect_ecc && g.ecc_enabled && !*g.ecc_enabled)
    sink.add("ecc.disabled", g.index, who + ": ECC is disabled");
  if (g.ecc_enabled && g.ecc_pending_enabled && *g.ecc_enabled != *g.ecc_pending_enabled) {
    sink.add("ecc.mode_change_pending", g.index,
             fmt::format("{}: ECC mode changes to {} at the next reset", who,
                         *g.ecc_pending_enabled ? "on" : "off"));
  }
  if (positive(g.ecc_volatile_uncorrected)) {
    std::string where;
    if (positive(g.ecc_dram_volatile_uncorrected) || positive(g.ecc_sram_volatile_uncorrected)) {
      where = fmt::format(" (DRAM {}, SRAM {})", g.ecc_dram_volatile_uncorrected.value_or(0),
                          g.ecc_sram_volatile_uncorrected.value_or(0));
    }
    sink.add("ecc.uncorrected_volatile", g.index,
             fmt::format("{}: {} uncorrectable ECC error(s) since the last reset{}", who,
                         *g.ecc_volatile_uncorrected, where),
             static_cast<double>(*g.ecc_volatile_uncorrected));
  }
  if (positive(g.ecc_aggregate_uncorrected)) {
    sink.add("ecc.uncorrected_aggregate", g.index,
             fmt::format("{}: {} uncorrectable ECC error(s) over the GPU's lifetime", who,
                         *g.ecc_aggregate_uncorrected),
             static_cast<double>(*g.ecc_aggregate_uncorrected));
  }
  if (positive(g.ecc_volatile_corrected)) {
    sink.add(
        "ecc.corrected_volatile", g.index,
        fmt::format("{}: {} corrected ECC error(s) since the last reset", who, *g.ecc_volatile_corrected),
        static_cast<double>(*g.ecc_volatile_corrected));
  }
  if (positive(g.ecc_sram_aggregate_uncorrected)) {
    sink.add("ecc.sram_uncorrected_aggregate", g.index,
             fmt::format("{}: {} uncorrectable SRAM ECC error(s) over the lifetime", who,
                         *g.ecc_sram_aggregate_uncorrected),
             static_cast<double>(*g.ecc_sram_aggregate_uncorrected));
  }
}

void memory_repair_rules(const GpuHealthReading& g, FindingSink& sink) {
  const std::string who = gpu_label(g);
  // Page retirement is the pre-Ampere mechanism; NVML still answers on some newer boards, so
  // the readings decide, not the architecture, except that "pending" is only meaningful there.
  if (g.retired_pages_pending && *g.retired_pages_pending && (cc_major(g.compute_capability) < 8)) {
    sink.add("retired_pages.pending", g.index, who + ": pages are pending retirement until the next reset");
  }
  if (positive(g.retired_pages_dbe)) {
    sink.add("retired_pages.dbe", g.index,
             fmt::format("{}: {} page(s) retired after double-bit errors", who, *g.retired_pages_dbe),
             static_cast<double>(*g.retired_pages_dbe));
  }
  if (g.remap_failure && *g.remap_failure) {
    sink.add("remap.failure", g.index, who + ": a row remap failed (no spare row left)");
  }
  if (g.remap_pending && *g.remap_pending) {
    sink.add("remap.pending", g.index, who + ": a row remap is pending until the next GPU reset");
  }
  if (positive(g.remapped_rows_uncorrectable)) {
    sink.add(
        "remap.uncorrectable_rows", g.index,
        fmt::format("{}: {} row(s) remapped after uncorrectable errors", who, *g.remapped_rows_uncorrectable),
        static_cast<double>(*g.remapped_rows_uncorrectable));
  }
  if (positive(g.remapped_rows_correctable)) {
    sink.add(
        "remap.correctable_rows", g.index,
        fmt::format("{}: {} row(s) remapped after correctable errors", who, *g.remapped_rows_correctable),
        static_cast<double>(*g.remapped_rows_correctable));
  }
}

void clock_rules(const GpuHealthReading& g, const HealthPolicy& p, FindingSink& sink) {
  const std::string who = gpu_label(g);
  auto sampled = [&](const char* code, int count, const char* what) {
    if (count <= 0 || g.throttle_samples <= 0) return;
    sink.add(code, g.index, fmt::format("{}: {} in {} of {} samples", who, what, count, g.throttle_samples),
             static_cast<double>(count) / g.throttle_samples);
  };
  sampled("throttle.hw_power_brake", g.hw_power_brake_samples, "external power brake");
  sampled("throttle.hw_thermal_slowdown", g.hw_thermal_samples, "hardware thermal slowdown");
  sampled("throttle.hw_slowdown", g.hw_slowdown_samples, "hardware slowdown");
  sampled("throttle.sw_thermal_slowdown", g.sw_thermal_samples, "software thermal slowdown");
  sampled("throttle.sw_power_cap", g.sw_power_cap_samples, "power-cap clock limit");

  if (g.temperature_c && g.slowdown_temp_c && *g.slowdown_temp_c > 0) {
    if (*g.temperature_c >= *g.slowdown_temp_c) {
      sink.add("temperature.at_slowdown", g.index,
               fmt::format("{}: {} °C reached the slowdown threshold of {} °C", who, *g.temperature_c,
                           *g.slowdown_temp_c),
               *g.temperature_c);
    } else if (*g.temperature_c >= *g.slowdown_temp_c - p.temp_margin_c) {
      sink.add("temperature.near_slowdown", g.index,
               fmt::format("{}: {} °C is within {} °C of the slowdown threshold of {} °C", who,
                           *g.temperature_c, p.temp_margin_c, *g.slowdown_temp_c),
               *g.temperature_c);
    }
  }
  if (g.power_limit_w && g.default_power_limit_w &&
      *g.power_limit_w < *g.default_power_limit_w - p.power_limit_tolerance_w) {
    sink.add("power.limit_below_default", g.index,
             fmt::format("{}: power limit {:.0f} W is below the default {:.0f} W", who, *g.power_limit_w,
                         *g.default_power_limit_w),
             *g.power_limit_w);
  }
}

void pcie_rules(const GpuHealthReading& g, FindingSink& sink) {
  const std::string who = gpu_label(g);
  const bool gen_low = g.pcie_gen && g.pcie_max_gen && *g.pcie_gen < *g.pcie_max_gen;
  const bool width_low = g.pcie_width && g.pcie_max_width && *g.pcie_width < *g.pcie_max_width;
  if (gen_low || width_low) {
    const std::string detail =
        fmt::format("{}: PCIe link at Gen{} x{} of max Gen{} x{}", who, g.pcie_gen.value_or(0),
                    g.pcie_width.value_or(0), g.pcie_max_gen.value_or(0), g.pcie_max_width.value_or(0));
    if (g.pcie_read_under_load) {
      sink.add("pcie.link_downgraded", g.index, detail + " while carrying traffic");
    } else {
      sink.add("pcie.link_below_max_idle", g.index, detail + " (idle reading)");
    }
  }
  if (g.pcie_max_gen && g.pcie_gpu_max_gen && *g.pcie_max_gen < *g.pcie_gpu_max_gen) {
    sink.add(
        "pcie.slot_below_gpu_max", g.index,
        fmt::format("{}: slot supports Gen{}, the GPU Gen{}", who, *g.pcie_max_gen, *g.pcie_gpu_max_gen));
  }
  if (positive(g.pcie_replay_counter)) {
    sink.add("pcie.replays", g.index,
             fmt::format("{}: PCIe replay counter at {}", who, *g.pcie_replay_counter),
             static_cast<double>(*g.pcie_replay_counter));
  }
}

std::uint64_t nvlink_error_sum(const NvLinkReading& l) {
  return l.replay_errors.value_or(0) + l.recovery_errors.value_or(0) + l.crc_flit_errors.value_or(0) +
         l.crc_data_errors.value_or(0);
}

// Which links must be up: `expect_nvlinks` (suite or baseline) when given, judged exactly;
// else every link NVML answers for, except where no fabric is expected: a PCIe part, or a
// single GPU of its partition (one GPU on the node, or passed into a VM) with every link down.
void nvlink_rules(const GpuHealthReading& g, const HealthPolicy& p, FindingSink& sink) {
  const std::string who = gpu_label(g);
  std::vector<int> down;
  std::uint64_t recoveries = 0, errors = 0;
  for (const auto& l : g.nvlinks) {
    if (!l.active) down.push_back(l.link);
    recoveries += l.recovery_errors.value_or(0);
    errors += l.replay_errors.value_or(0) + l.crc_flit_errors.value_or(0) + l.crc_data_errors.value_or(0);
  }
  const int total = static_cast<int>(g.nvlinks.size());
  const int active = total - static_cast<int>(down.size());
  const bool all_down = total > 0 && active == 0;
  if (p.expect_nvlinks) {
    if (active < *p.expect_nvlinks) {
      sink.add("nvlink.link_inactive", g.index,
               fmt::format("{}: {} of {} expected NVLink links active (down: {})", who, active,
                           *p.expect_nvlinks, down.empty() ? "-" : fmt::format("{}", fmt::join(down, ","))),
               static_cast<double>(*p.expect_nvlinks - active));
    }
  } else if (!down.empty()) {
    const bool no_fabric = p.no_nvlink_fabric.count(g.index) > 0;
    if (no_fabric || (all_down && p.single_gpu_partition)) {
      sink.add("nvlink.linkless_partition", g.index,
               fmt::format("{}: NVLink link(s) {} down of {}, none expected ({})", who, fmt::join(down, ","),
                           total, no_fabric ? "a PCIe part" : "a single GPU in its partition"),
               static_cast<double>(down.size()));
    } else {
      sink.add("nvlink.link_inactive", g.index,
               fmt::format("{}: NVLink link(s) {} down of {}", who, fmt::join(down, ","), total),
               static_cast<double>(down.size()));
    }
  }
  if (recoveries > 0) {
    sink.add("nvlink.recovery_errors", g.index,
             fmt::format("{}: {} NVLink recovery error(s)", who, recoveries),
             static_cast<double>(recoveries));
  }
  if (errors > 0) {
    sink.add("nvlink.errors", g.index, fmt::format("{}: {} NVLink replay/CRC error(s)", who, errors),
             static_cast<double>(errors));
  }
}

// Counters that grew between `b` (before) and `a` (after). A counter that went down was reset
// (driver reload, GPU reset) in between: not growth.
void growth_rules(const GpuHealthReading& b, const GpuHealthReading& a, FindingSink& sink) {
  const std::string who = gpu_label(a);
  auto grew = [&](const char* code, const std::optional<std::uint64_t>& before,
                  const std::optional<std::uint64_t>& after, const char* what) {
    if (!before || !after || *after <= *before) return;
    sink.add(code, a.index,
             fmt::format("{}: {} grew from {} to {} during the run", who, what, *before, *after),
             static_cast<double>(*after - *before));
  };
  grew("ecc.uncorrected_grew", b.ecc_volatile_uncorrected, a.ecc_volatile_uncorrected,
       "uncorrectable ECC errors");
  grew("ecc.corrected_grew", b.ecc_volatile_corrected, a.ecc_volatile_corrected, "corrected ECC errors");
  auto sum = [](const std::optional<std::uint64_t>& x,
                const std::optional<std::uint64_t>& y) -> std::optional<std::uint64_t> {
    if (!x && !y) return std::nullopt;
    return x.value_or(0) + y.value_or(0);
  };
  grew("remap.rows_grew", sum(b.remapped_rows_correctable, b.remapped_rows_uncorrectable),
       sum(a.remapped_rows_correctable, a.remapped_rows_uncorrectable), "remapped rows");
  grew("retired_pages.grew", sum(b.retired_pages_sbe, b.retired_pages_dbe),
       sum(a.retired_pages_sbe, a.retired_pages_dbe), "retired pages");
  grew("pcie.replays_grew", b.pcie_replay_counter, a.pcie_replay_counter, "PCIe replays");
  std::optional<std::uint64_t> nb, na;
  for (const auto& l : b.nvlinks) nb = nb.value_or(0) + nvlink_error_sum(l);
  for (const auto& l : a.nvlinks) na = na.value_or(0) + nvlink_error_sum(l);
  grew("nvlink.errors_grew", nb, na, "NVLink errors");
}

const GpuHealthReading* match(const HealthSnapshot& s, const GpuHealthReading& g) {
  for (const auto& o : s.gpus) {
    if (!g.uuid.empty() && o.uuid == g.uuid) return &o;
  }
  if (!g.uuid.empty()) {
    // Same index but another UUID is another GPU (swapped or re-enumerated): never compared.
    for (const auto& o : s.gpus) {
      if (o.index == g.index && !o.uuid.empty()) return nullptr;
    }
  }
  for (const auto& o : s.gpus) {
    if (o.index == g.index) return &o;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& health_finding_codes() {
  static const std::vector<std::string> codes{"gpu.count_mismatch",
                                              "gpu.lost",
                                              "nvml.readings_unavailable",
                                              "ecc.disabled",
                                              "ecc.mode_change_pending",
                                              "ecc.uncorrected_volatile",
                                              "ecc.uncorrected_aggregate",
                                              "ecc.corrected_volatile",
                                              "ecc.sram_uncorrected_aggregate",
                                              "ecc.uncorrected_grew",
                                              "ecc.corrected_grew",
                                              "retired_pages.pending",
                                              "retired_pages.dbe",
                                              "retired_pages.grew",
                                              "remap.pending",
                                              "remap.failure",
                                              "remap.uncorrectable_rows",
                                              "remap.correctable_rows",
                                              "remap.rows_grew",
                                              "throttle.hw_slowdown",
                                              "throttle.hw_thermal_slowdown",
                                              "throttle.hw_power_brake",
                                              "throttle.sw_thermal_slowdown",
                                              "throttle.sw_power_cap",
                                              "temperature.at_slowdown",
                                              "temperature.near_slowdown",
                                              "power.limit_below_default",
                                              "pcie.link_downgraded",
                                              "pcie.link_below_max_idle",
                                              "pcie.slot_below_gpu_max",
                                              "pcie.replays",
                                              "pcie.replays_grew",
                                              "nvlink.link_inactive",
                                              "nvlink.linkless_partition",
                                              "nvlink.recovery_errors",
                                              "nvlink.errors",
                                              "nvlink.errors_grew"};
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v = codes;
    v.insert(v.end(), gpu_fabric_finding_codes().begin(), gpu_fabric_finding_codes().end());
    return v;
  }();
  return all;
}

Status status_of_findings(const std::vector<Finding>& findings) {
  Status s = Status::pass;
  for (const auto& f : findings) {
    if (f.severity == Severity::fail) return Status::fail;
    if (f.severity == Severity::warn) s = Status::warn;
  }
  return s;
}

std::vector<Finding> xid_findings(const std::vector<XidEvent>& events, const SeverityTable& table) {
  struct Group {
    int count = 0;
    bool during_own_check = false;
    std::string first_time, check;
  };
  std::map<std::pair<int, int>, Group> groups;  // (code, gpu or -1)
  for (const auto& e : events) {
    Group& g = groups[{e.code, e.gpu.value_or(-1)}];
    if (g.count++ == 0) g.first_time = e.time;
    if (!e.during_check.empty()) {
      g.during_own_check = true;
      g.check = e.during_check;
    }
  }
  std::vector<Finding> out;
  for (const auto& [key, g] : groups) {
    const auto [code, gpu] = key;
    const SeverityRule& rule = table.xid(code);
    const std::string name = rule.mnemonic.empty() ? "" : " " + rule.mnemonic;
    out.push_back(Finding{
        .code = "xid." + std::to_string(code),
        .severity =
            (g.during_own_check && rule.own_kernel_severity) ? *rule.own_kernel_severity : rule.severity,
        .gpu = gpu >= 0 ? std::optional<int>(gpu) : std::nullopt,
        .detail = fmt::format("Xid {}{}: {}; seen {} time(s){}{}", code, name, rule.meaning, g.count,
                              g.first_time.empty() ? "" : ", first at " + g.first_time,
                              g.during_own_check ? ", during gpuqual check " + g.check : ""),
        .action = rule.action,
        .value = g.count,
    });
  }
  return out;
}

namespace {

std::vector<std::string> lost_answers(const std::vector<std::string>& unread) {
  std::vector<std::string> out;
  for (const auto& u : unread) {
    if (nvml_answer_lost(u)) out.push_back(u);
  }
  return out;
}

// The GPU count: every GPU NVML lists, less the ones it reports lost (nvmlDeviceGetCount still
// counts a GPU that fell off the bus). Each lost GPU is a gpu.lost finding of its own: on a run
// GPU, on a device not tied to one (`unidentified`), or seen by the Xid watch's wait.
void gpu_count_rules(const HealthSnapshot& now, const HealthPolicy& policy, FindingSink& sink) {
  int lost = 0;
  for (const auto& g : now.gpus) {
    const std::vector<std::string> answers = lost_answers(g.unread);
    if (answers.empty()) continue;
    ++lost;
    sink.add("gpu.lost", g.index,
             fmt::format("{}: NVML reports the GPU lost ({})", gpu_label(g), fmt::join(answers, "; ")));
  }
  int lost_untied = 0;
  for (const auto& u : now.unidentified) {
    if (!nvml_answer_lost(u)) continue;
    ++lost_untied;
    sink.add("gpu.lost", std::nullopt, fmt::format("NVML reports a GPU lost: {}", u));
  }
  if (policy.xid_watch_off && nvml_answer_lost(*policy.xid_watch_off)) {
    sink.add("gpu.lost", std::nullopt, fmt::format("the Xid watch: {}", *policy.xid_watch_off));
  }
  const int listed = now.nvml_gpu_count.value_or(static_cast<int>(now.gpus.size()));
  const int seen = listed - lost - (now.nvml_gpu_count ? lost_untied : 0);
  if (policy.expect_gpus && seen != *policy.expect_gpus) {
    const int gone = listed - seen;
    sink.add("gpu.count_mismatch", std::nullopt,
             gone == 0 ? fmt::format("NVML sees {} GPU(s), {} expected", seen, *policy.expect_gpus)
                       : fmt::format("NVML sees {} usable GPU(s) ({} listed, {} lost), {} expected", seen,
                                     listed, gone, *policy.expect_gpus),
             static_cast<double>(seen));
  }
}

// Every finding of the snapshot: the GPU count and lost GPUs, each GPU's readings (and their
// growth since `before`), the readings NVML could not give, then the Xid events.
void collect_findings(const HealthSnapshot& now, const HealthSnapshot* before, const HealthPolicy& policy,
                      const SeverityTable& table, HealthEvaluation& ev) {
  FindingSink sink(table, ev.findings);
  gpu_count_rules(now, policy, sink);
  for (const auto& g : now.gpus) {
    ecc_rules(g, policy, sink);
    memory_repair_rules(g, sink);
    clock_rules(g, policy, sink);
    pcie_rules(g, sink);
    nvlink_rules(g, policy, sink);
    const FabricPolicy fabric{policy.nvlink_by_gpu, policy.no_nvlink_fabric, policy.single_gpu_partition};
    for (auto& f : gpu_fabric_findings(g, fabric, table)) ev.findings.push_back(std::move(f));
    if (before) {
      if (const GpuHealthReading* b = match(*before, g)) growth_rules(*b, g, sink);
    }
    std::vector<std::string> unread;  // the lost answers are gpu.lost's
    for (const auto& u : g.unread) {
      if (!nvml_answer_lost(u)) unread.push_back(u);
    }
    if (!unread.empty()) {
      sink.add("nvml.readings_unavailable", g.index,
               fmt::format("{}: not read: {}", gpu_label(g), fmt::join(unread, "; ")),
               static_cast<double>(unread.size()));
    }
  }
  for (auto& f : xid_findings(now.xids, table)) ev.findings.push_back(std::move(f));
  apply_recovery_actions(ev.findings, now, table);
}

// GPU `g`'s status from its findings; a core field not read makes it error unless it already
// fails (pass only on readings). Its unread core fields go to `unread_core`, the ones that do
// not apply to its hardware to ev.not_applicable.
GpuCheckStatus gpu_status(const GpuHealthReading& g, HealthEvaluation& ev,
                          std::vector<std::string>& unread_core) {
  std::vector<Finding> mine;
  for (const auto& f : ev.findings) {
    if (f.gpu == g.index) mine.push_back(f);
  }
  GpuCheckStatus s;
  s.gpu = g.index;
  s.status = status_of_findings(mine);
  for (const auto& f : mine) {
    if (f.severity == (s.status == Status::fail ? Severity::fail : Severity::warn) &&
        s.status != Status::pass) {
      s.reason = f.code + ": " + f.detail;
      break;
    }
  }
  std::vector<std::string> missing, not_provided;
  for (const auto& gap : core_field_gaps(g)) {
    if (gap.vgpu) not_provided.push_back(gap.field);
    if (gap.not_applicable) {
      ev.not_applicable.push_back(fmt::format("gpu {}: {}: {}", g.index, gap.field, gap.why));
    } else {
      missing.push_back(fmt::format("{} ({})", gap.field, gap.why));
    }
  }
  if (!missing.empty()) {
    unread_core.push_back(fmt::format("GPU {}: {}", g.index, fmt::join(missing, ", ")));
    if (s.status != Status::fail) {
      s.status = Status::error;
      s.reason = fmt::format("not read: {}", fmt::join(missing, ", "));
    }
  } else if (!not_provided.empty()) {
    ev.not_provided_to_vgpu.push_back(fmt::format("GPU {}: {}", g.index, fmt::join(not_provided, ", ")));
    if (s.status != Status::fail) {
      s.status = Status::skip;
      s.reason = fmt::format("vGPU guest: NVML does not provide {}", fmt::join(not_provided, ", "));
    }
  }
  return s;
}

// The check's status and reason: no GPU to judge, core readings missing, the worst findings
// (in table order of severity), or healthy.
void decide_health(const HealthSnapshot& now, const HealthPolicy& policy,
                   std::vector<std::string> unread_core, HealthEvaluation& ev) {
  ev.status = status_of_findings(ev.findings);
  if (policy.xid_watch_off) {
    // NVML's events are not given to a vGPU guest either (NOT_SUPPORTED on every GPU of it).
    const bool vgpu = !now.gpus.empty() && std::all_of(now.gpus.begin(), now.gpus.end(), [](const auto& g) {
      return g.virtualization_mode == "vgpu";
    });
    if (vgpu && nvml_not_supported(*policy.xid_watch_off)) {
      ev.not_provided_to_vgpu.push_back("Xid events (" + *policy.xid_watch_off + ")");
    } else {
      unread_core.push_back("Xid watch off: " + *policy.xid_watch_off);
    }
  }
  if (now.gpus.empty() && now.unidentified.empty() && !policy.expect_gpus) {
    ev.status = Status::skip;
    ev.reason = "NVML sees no GPU";
    return;
  }
  if (ev.status != Status::fail && !unread_core.empty()) {
    ev.status = Status::error;
    ev.reason = fmt::format("core health readings not read: {}", fmt::join(unread_core, "; "));
    return;
  }
  if (ev.status != Status::fail && !ev.not_provided_to_vgpu.empty()) {
    ev.status = Status::skip;
    ev.reason_code = "vgpu_guest";
    ev.reason =
        fmt::format("vGPU guest: NVML does not provide {}; the hypervisor host reads the physical GPU",
                    fmt::join(ev.not_provided_to_vgpu, "; "));
    return;
  }
  if (ev.status != Status::pass) {
    std::vector<std::string> worst;
    const Severity level = ev.status == Status::fail ? Severity::fail : Severity::warn;
    for (const auto& f : ev.findings) {
      if (f.severity == level) worst.push_back(f.gpu ? fmt::format("{} (GPU {})", f.code, *f.gpu) : f.code);
    }
    ev.reason =
        fmt::format("{}: {}", ev.status == Status::fail ? "unhealthy" : "attention", fmt::join(worst, ", "));
  } else {
    ev.reason = fmt::format("{} GPU(s) healthy", now.gpus.size());
  }
}

}  // namespace

HealthEvaluation evaluate_health(const HealthSnapshot& now, const HealthSnapshot* before,
                                 const HealthPolicy& policy, const SeverityTable& table) {
  HealthEvaluation ev;
  if (!now.nvml_available) {
    ev.status = Status::skip;
    ev.reason = "NVML unavailable: " + now.nvml_reason;
    return ev;
  }
  collect_findings(now, before, policy, table, ev);
  std::vector<std::string> unread_core;  // "GPU 0: remapped_rows (...)", "Xid watch off: ..."
  for (const auto& g : now.gpus) ev.per_gpu.push_back(gpu_status(g, ev, unread_core));
  // A device that may be one of the run's GPUs, unread: the check cannot pass on the others.
  for (const auto& u : now.unidentified) {
    if (!nvml_answer_lost(u)) unread_core.push_back(u);
  }
  decide_health(now, policy, std::move(unread_core), ev);
  return ev;
}

}  // namespace gpuqual
