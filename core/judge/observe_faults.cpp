#include "core/judge/observe_faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>

#include "core/base/plural.hpp"
#include "core/judge/observe_gpus.hpp"

namespace gpuqual::observe {

namespace {

// A kind of fault and the GPUs of each pool that show it.
struct Affected {
  std::map<GpuKey, std::string> canary;  // GPU → what was seen
  std::set<GpuKey> control;
};

struct PoolSizes {
  std::size_t canary = 0;
  std::size_t control = 0;
};

std::optional<int> gpu_index(const std::string& gpu) {
  int i = 0;
  auto [ptr, ec] = std::from_chars(gpu.data(), gpu.data() + gpu.size(), i);
  if (ec != std::errc() || ptr != gpu.data() + gpu.size()) return std::nullopt;
  return i;
}

PoolSizes pool_sizes(const ObserveData& d, const ObservePolicy& p) {
  PoolSizes s;
  if (auto it = d.fields.find(field::kUtil); it != d.fields.end()) {
    s.canary = group_by_gpu(it->second, p.node_label, d.canary).size();
    s.control = group_by_gpu(it->second, p.node_label, d.control).size();
  }
  return s;
}

// Fleet-wide: the control pool shows the fault on at least as large a share of its GPUs.
bool fleet_wide(const Affected& a, const PoolSizes& s) {
  if (a.control.empty() || s.control == 0) return false;
  const double canary_share = s.canary ? static_cast<double>(a.canary.size()) / s.canary : 1.0;
  return static_cast<double>(a.control.size()) / s.control >= canary_share;
}

// Rows and reasons of one fault kind: per canary GPU with the rule's severity, or one
// fleet-wide note when the control shows it as often.
void report(const std::string& code, const Affected& a, Severity severity, const std::string& action,
            const PoolSizes& s, Judgement& j) {
  if (a.canary.empty()) return;
  const bool fleet = fleet_wide(a, s);
  for (const auto& [key, seen] : a.canary) {
    Finding f{code,   severity,    gpu_index(key.gpu), fmt::format("{}: {}", key.text(), seen),
              action, std::nullopt};
    Status st = severity == Severity::fail   ? Status::fail
                : severity == Severity::warn ? Status::warn
                                             : Status::pass;
    std::string reason = f.detail;
    if (fleet) {
      st = severity == Severity::fail ? Status::warn : Status::pass;
      reason += fmt::format(" (fleet-wide: also on {} of {} control GPUs; not blamed on the canary)",
                            a.control.size(), s.control);
    }
    j.v.findings.push_back({"observe.faults", f, st, reason});
    j.reason(st, reason);
  }
}

Severity xid_severity(int code, const ObservePolicy& p, const SeverityTable& table) {
  if (auto it = p.xid_overrides.find(code); it != p.xid_overrides.end()) return it->second;
  const Severity s = table.xid(code).severity;
  // The table rates application-caused Xids info (their own_kernel_severity is for gpuqual's
  // known-good kernels); under production load they are the workload's, a warning to look at.
  return s == Severity::info ? Severity::warn : s;
}

void judge_xids(const QueryResult& r, const ObserveData& d, const ObservePolicy& p,
                const SeverityTable& table, const PoolSizes& s, Judgement& j) {
  std::map<int, Affected> by_code;
  for (const auto& [key, points] : group_by_gpu(r, p.node_label, d.canary)) {
    for (const auto& [t, code] : xid_events(points, d.window)) {
      const SeverityRule& rule = table.xid(code);
      by_code[code].canary.emplace(
          key, fmt::format("Xid {} ({}: {}) at {}", code, rule.mnemonic, rule.meaning, utc_text(t)));
    }
  }
  for (const auto& [key, points] : group_by_gpu(r, p.node_label, d.control)) {
    for (const auto& [t, code] : xid_events(points, d.window)) by_code[code].control.insert(key);
  }
  for (const auto& [code, a] : by_code) {
    if (a.canary.empty() && !a.control.empty()) {
      j.notes.push_back(fmt::format("fleet-wide: Xid {} on {} of {} control GPUs, none on the canary", code,
                                    a.control.size(), s.control));
    }
    report(fmt::format("xid.{}", code), a, xid_severity(code, p, table), table.xid(code).action, s, j);
  }
}

// A counter that must not grow, or a flag that must stay 0, read as the health finding `code`.
struct CounterFault {
  const char* field;
  const char* code;
  bool flag;  // true: any non-zero sample; false: growth over the window
};

constexpr CounterFault kCounterFaults[] = {
    {field::kDbe, "ecc.uncorrected_grew", false},
    {field::kRemapFailure, "remap.failure", true},
    {field::kRemapPending, "remap.pending", true},
    {field::kRemapUncorrectable, "remap.rows_grew", false},
    {field::kPcieReplay, "pcie.replays_grew", false},
    {field::kNvlinkCrc, "nvlink.errors_grew", false},
    {field::kNvlinkReplay, "nvlink.errors_grew", false},
};

std::optional<std::string> counter_seen(const CounterFault& c, const std::vector<Point>& points) {
  if (c.flag) {
    for (const Point& pt : points) {
      if (pt.v > 0) return fmt::format("{} = {:g} at {}", c.field, pt.v, utc_text(pt.t));
    }
    return std::nullopt;
  }
  const double growth = counter_growth(points);
  if (growth > 0) return fmt::format("{} grew by {:g} in the window", c.field, growth);
  return std::nullopt;
}

void judge_counter(const CounterFault& c, const QueryResult& r, const ObserveData& d, const ObservePolicy& p,
                   const SeverityTable& table, const PoolSizes& s, Judgement& j) {
  Affected a;
  const GpuPoints canary = group_by_gpu(r, p.node_label, d.canary);
  for (const auto& [key, points] : canary) {
    if (auto seen = counter_seen(c, points)) a.canary.emplace(key, *seen);
  }
  const GpuPoints control = group_by_gpu(r, p.node_label, d.control);
  for (const auto& [key, points] : control) {
    if (counter_seen(c, points)) a.control.insert(key);
  }
  if (canary.empty() && control.empty()) {
    j.notes.push_back(
        fmt::format("not watched: {} has no series (off in dcgm-exporter's default counters; "
                    "enable it in the exporter's CSV to judge {})",
                    c.field, c.code));
  }
  const SeverityRule& rule = table.finding(c.code);
  report(c.code, a, rule.severity, rule.action, s, j);
}

// Time under a clock event: the violation counter's growth as a fraction of the window; a canary
// GPU counts when it exceeds the control pool's worst GPU by more than the allowed fraction.
void judge_throttle(const char* field, const char* code, Severity severity, const QueryResult& r,
                    const ObserveData& d, const ObservePolicy& p, const PoolSizes& s, Judgement& j) {
  const auto fraction = [&](const std::vector<Point>& pts) {
    return counter_growth(pts) * p.violation_unit_s / d.window.length();
  };
  double control_worst = 0;
  for (const auto& [key, points] : group_by_gpu(r, p.node_label, d.control))
    control_worst = std::max(control_worst, fraction(points));
  Affected a;
  for (const auto& [key, points] : group_by_gpu(r, p.node_label, d.canary)) {
    const double f = fraction(points);
    if (f > control_worst + p.allowed_throttle_fraction) {
      a.canary.emplace(
          key, fmt::format("{:.0f} % of the window under {} clock events ({}), the control pool's "
                           "worst GPU {:.0f} % (allowed: {:.0f} points more)",
                           f * 100, code == std::string("throttle.thermal_time") ? "thermal" : "power", field,
                           control_worst * 100, p.allowed_throttle_fraction * 100));
    }
  }
  report(code, a, severity, "check cooling, power delivery and the clocks; compare with the control pool", s,
         j);
}

// The HW slowdown bits of the clock-event reasons mask (third_party/nvml/nvml.h, NVML 13:
// nvmlClocksThrottleReasonHwSlowdown 0x8, nvmlClocksThrottleReasonHwThermalSlowdown 0x40,
// nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x80; the nvmlClocksEventReason* names of newer
// headers keep the values). DCGM_FI_DEV_CLOCKS_EVENT_REASONS carries the same mask.
constexpr std::uint64_t kHwSlowdownBits = 0x8 | 0x40 | 0x80;

// The fraction of a GPU's samples with a HW slowdown bit set (the gauge is a state, sampled at
// each scrape: the share of samples estimates the share of the window).
double hw_slowdown_fraction(const std::vector<Point>& pts) {
  if (pts.empty()) return 0;
  std::size_t set = 0;
  for (const Point& pt : pts) {
    if (pt.v >= 0 && (static_cast<std::uint64_t>(std::llround(pt.v)) & kHwSlowdownBits) != 0) ++set;
  }
  return static_cast<double>(set) / static_cast<double>(pts.size());
}

// HW slowdown (clocks cut by half or more: throughput the control does not lose) on more than
// the allowed fraction of a GPU's samples. A GPU of either pool past it counts; report() then
// names the canary's rows, or calls them fleet-wide when the control shows it as often. A pool
// without the series is said so (not watched), never read as no slowdown.
void judge_hw_slowdown(const QueryResult& r, const ObserveData& d, const ObservePolicy& p, const PoolSizes& s,
                       Judgement& j) {
  const GpuPoints control = group_by_gpu(r, p.node_label, d.control);
  const GpuPoints canary = group_by_gpu(r, p.node_label, d.canary);
  double control_worst = 0;
  Affected a;
  for (const auto& [key, points] : control) {
    const double f = hw_slowdown_fraction(points);
    control_worst = std::max(control_worst, f);
    if (f > p.allowed_throttle_fraction) a.control.insert(key);
  }
  for (const auto& [key, points] : canary) {
    const double f = hw_slowdown_fraction(points);
    if (f <= p.allowed_throttle_fraction) continue;
    a.canary.emplace(key, fmt::format("HW slowdown on {:.0f} % of the samples ({} bits 0x8/0x40/0x80), the "
                                      "control pool's worst GPU {:.0f} % (allowed: {:.0f} %)",
                                      f * 100, field::kClocksEventReasons, control_worst * 100,
                                      p.allowed_throttle_fraction * 100));
  }
  for (const auto* pool : {&canary, &control}) {
    if (!pool->empty()) continue;
    j.notes.push_back(fmt::format(
        "not watched: {} (or {}) has no series from the {} pool: HW slowdown not "
        "judged (enable the field in dcgm-exporter's CSV)",
        field::kClocksEventReasons, field::kClocksEventReasonsOld, pool == &canary ? "canary" : "control"));
  }
  if (control.empty()) return;  // nothing to hold the canary against
  report("throttle.hw_slowdown_time", a, Severity::fail,
         "check cooling, power delivery and the power-brake signal; compare with the control pool", s, j);
}

const QueryResult* usable(const ObserveData& d, const char* name, Judgement& j) {
  auto it = d.fields.find(name);
  if (it == d.fields.end()) return nullptr;
  if (!it->second.error.empty()) {
    j.unjudged.push_back(fmt::format("Prometheus query failed: {}: {}", it->second.query, it->second.error));
    return nullptr;
  }
  return &it->second;
}

}  // namespace

std::vector<std::pair<double, int>> xid_events(const std::vector<Point>& points, const Window& w) {
  std::vector<std::pair<double, int>> out;
  // The value at the window's opening is what happened before it.
  double last = !points.empty() && points.front().t <= w.start + w.step ? points.front().v : 0;
  for (const Point& pt : points) {
    if (pt.v != last && pt.v > 0 && pt.v < 100000)
      out.emplace_back(pt.t, static_cast<int>(std::lround(pt.v)));
    last = pt.v;
  }
  return out;
}

void judge_faults(const ObserveData& d, const ObservePolicy& p, const SeverityTable& table, Judgement& j) {
  const PoolSizes s = pool_sizes(d, p);
  const std::size_t before = j.v.findings.size();
  if (const QueryResult* r = usable(d, field::kXid, j)) judge_xids(*r, d, p, table, s, j);
  for (const CounterFault& c : kCounterFaults) {
    if (const QueryResult* r = usable(d, c.field, j)) judge_counter(c, *r, d, p, table, s, j);
  }
  // Thermal slowdown costs the workload throughput the control does not lose: fail. Power
  // capping is normal under heavy load (health-findings.yaml rates sw_power_cap info): warn.
  if (const QueryResult* r = usable(d, field::kThermalViolation, j))
    judge_throttle(field::kThermalViolation, "throttle.thermal_time", Severity::fail, *r, d, p, s, j);
  if (const QueryResult* r = usable(d, field::kPowerViolation, j))
    judge_throttle(field::kPowerViolation, "throttle.power_time", Severity::warn, *r, d, p, s, j);
  if (const QueryResult* r = usable(d, field::kClocksEventReasons, j)) judge_hw_slowdown(*r, d, p, s, j);
  for (const std::string& node : d.canary) {
    Status worst = Status::pass;
    std::size_t n = 0;
    for (std::size_t i = before; i < j.v.findings.size(); ++i) {
      if (j.v.findings[i].finding.detail.rfind(node + " GPU", 0) != 0 &&
          j.v.findings[i].finding.detail.rfind(node + ":", 0) != 0)
        continue;
      ++n;
      worst = worse_of(worst, j.v.findings[i].status);
    }
    j.v.checks.push_back(
        {"faults " + node, std::nullopt, worst,
         n == 0 ? node + ": no fault in the window" : fmt::format("{}: {}", node, plural(n, "fault"))});
  }
}

}  // namespace gpuqual::observe
