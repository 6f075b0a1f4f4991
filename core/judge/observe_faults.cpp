#include "core/judge/observe_faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>

#include "core/base/plural.hpp"
#include "core/base/stats.hpp"
#include "core/judge/observe_gpus.hpp"
#include "core/judge/observe_watch.hpp"

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

// What every field's judgement shares: the pools' sizes, the canary GPUs that must report it,
// and (filled as fields are read) the GPUs some field of which came from several sources.
struct FieldContext {
  PoolSizes sizes;
  std::set<GpuKey> reporting;
  std::set<std::string>& duplicated;
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

void judge_xids(const GpuPoints& canary, const GpuPoints& control, const Window& w, const ObservePolicy& p,
                const SeverityTable& table, const PoolSizes& s, Judgement& j) {
  std::map<int, Affected> by_code;
  for (const auto& [key, series] : canary) {
    for (const auto& [t, code] : xid_events(series.points, w)) {
      const SeverityRule& rule = table.xid(code);
      by_code[code].canary.emplace(
          key, fmt::format("Xid {} ({}: {}) at {}", code, rule.mnemonic, rule.meaning, utc_text(t)));
    }
  }
  for (const auto& [key, series] : control) {
    for (const auto& [t, code] : xid_events(series.points, w)) by_code[code].control.insert(key);
  }
  for (const auto& [code, a] : by_code) {
    if (a.canary.empty() && !a.control.empty()) {
      j.notes.push_back(fmt::format("fleet-wide: Xid {} on {} of {} control GPUs, none on the canary", code,
                                    a.control.size(), s.control));
    }
    report(fmt::format("xid.{}", code), a, observe_xid_severity(code, p, table), table.xid(code).action, s,
           j);
  }
}

// A counter that must not grow, or a flag that must stay 0, read as the health finding `code`.
struct CounterFault {
  const char* field;
  const char* code;
  bool flag;  // true: any non-zero sample; false: growth over the window
};

// As the health check reads the same counters before and after a run (core/rules/health_rules.cpp:
// ecc.corrected_grew, remap.rows_grew over correctable and uncorrectable rows).
constexpr CounterFault kCounterFaults[] = {
    {field::kDbe, "ecc.uncorrected_grew", false},
    {field::kSbe, "ecc.corrected_grew", false},
    {field::kRemapCorrectable, "remap.rows_grew", false},
    {field::kRemapFailure, "remap.failure", true},
    {field::kRemapPending, "remap.pending", true},
    {field::kRemapUncorrectable, "remap.rows_grew", false},
    {field::kPcieReplay, "pcie.replays_grew", false},
    {field::kNvlinkCrc, "nvlink.errors_grew", false},
    {field::kNvlinkReplay, "nvlink.errors_grew", false},
};

std::optional<std::string> counter_seen(const CounterFault& c, const GpuSeries& s) {
  if (c.flag) {
    for (const Point& pt : s.points) {
      if (pt.v > 0) return fmt::format("{} = {:g} at {}", c.field, pt.v, utc_text(pt.t));
    }
    return std::nullopt;
  }
  const double growth = counter_growth(s);
  if (growth > 0) return fmt::format("{} grew by {:g} in the window", c.field, growth);
  return std::nullopt;
}

void judge_counter(const CounterFault& c, const GpuPoints& canary, const GpuPoints& control,
                   const SeverityTable& table, const PoolSizes& s, Judgement& j) {
  Affected a;
  for (const auto& [key, series] : canary) {
    if (auto seen = counter_seen(c, series)) a.canary.emplace(key, *seen);
  }
  for (const auto& [key, series] : control) {
    if (counter_seen(c, series)) a.control.insert(key);
  }
  const SeverityRule& rule = table.finding(c.code);
  report(c.code, a, rule.severity, rule.action, s, j);
}

// Time under a clock event: the violation counter's growth as a fraction of the time its samples
// span. A GPU counts when it exceeds the control pool's median GPU by more than the allowed
// fraction: the pool as a whole, so one sick control GPU does not raise the bar for the canary;
// control GPUs past the same bar make it fleet-wide (report()).
void judge_throttle(const char* field, const char* code, Severity severity, const GpuPoints& canary,
                    const GpuPoints& control, const ObserveData& d, const ObservePolicy& p,
                    const PoolSizes& s, Judgement& j) {
  const auto fraction = [&](const GpuSeries& g) {
    const double span = watched_span(g, d.window);
    return span > 0 ? counter_growth(g) * p.violation_unit_s / span : 0.0;
  };
  // More time under clock events than passed (beyond a step's jitter) is no reading: a wrong
  // clock_events.unit, or a counter mixed from two sources.
  const auto impossible = [&](double f) { return f > 1.1; };
  const auto not_a_reading = [&](const GpuKey& key, double f) {
    return fmt::format(
        "{}: {} grew by {:.0f} % of the time its samples span: more time under clock events "
        "than passed (clock_events.unit {}?), not judged",
        key.text(), field, f * 100, p.violation_unit_s == 1e-9 ? "ns" : "us");
  };
  std::vector<double> control_fractions;
  for (const auto& [key, series] : control) {
    const double f = fraction(series);
    if (impossible(f))
      j.notes.push_back("control " + not_a_reading(key, f));
    else
      control_fractions.push_back(f);
  }
  const double median = stats::median(control_fractions);  // 0 without control series: held against none
  const double bar = median + p.allowed_throttle_fraction;
  Affected a;
  for (const auto& [key, series] : control) {
    if (const double f = fraction(series); f > bar && !impossible(f)) a.control.insert(key);
  }
  const std::string kind = code == std::string("throttle.thermal_time") ? "thermal" : "power";
  for (const auto& [key, series] : canary) {
    const double f = fraction(series);
    if (impossible(f)) {
      j.unjudged.push_back(not_a_reading(key, f));
      continue;
    }
    if (f <= bar) continue;
    a.canary.emplace(key, fmt::format("{:.0f} % of the window under {} clock events ({}), the control pool's "
                                      "median GPU {:.0f} % (allowed: {:.0f} points more)",
                                      f * 100, kind, field, median * 100, p.allowed_throttle_fraction * 100));
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
double hw_slowdown_fraction(const GpuSeries& s) {
  const std::vector<Point>& pts = s.points;
  if (pts.empty()) return 0;
  std::size_t set = 0;
  for (const Point& pt : pts) {
    if (pt.v >= 0 && (static_cast<std::uint64_t>(std::llround(pt.v)) & kHwSlowdownBits) != 0) ++set;
  }
  return static_cast<double>(set) / static_cast<double>(pts.size());
}

// HW slowdown (clocks cut by half or more: throughput the control does not lose) on more than
// the allowed fraction of a GPU's samples. A GPU of either pool past it counts; report() then
// names the canary's rows, or calls them fleet-wide when the control shows it as often.
void judge_hw_slowdown(const GpuPoints& canary, const GpuPoints& control, const ObservePolicy& p,
                       const PoolSizes& s, Judgement& j) {
  std::vector<double> control_fractions;
  Affected a;
  for (const auto& [key, series] : control) {
    const double f = hw_slowdown_fraction(series);
    control_fractions.push_back(f);
    if (f > p.allowed_throttle_fraction) a.control.insert(key);
  }
  const double median = stats::median(control_fractions);
  for (const auto& [key, series] : canary) {
    const double f = hw_slowdown_fraction(series);
    if (f <= p.allowed_throttle_fraction) continue;
    a.canary.emplace(key, fmt::format("HW slowdown on {:.0f} % of the samples ({} bits 0x8/0x40/0x80), the "
                                      "control pool's median GPU {:.0f} % (allowed: {:.0f} %)",
                                      f * 100, field::kClocksEventReasons, median * 100,
                                      p.allowed_throttle_fraction * 100));
  }
  report("throttle.hw_slowdown_time", a, Severity::fail,
         "check cooling, power delivery and the power-brake signal; compare with the control pool", s, j);
}

// The field's answer; a failed query is unjudged, naming it. A field never queried (a caller
// that built ObserveData by hand) reads as no series.
const QueryResult* usable(const ObserveData& d, const char* name, Judgement& j) {
  static const QueryResult none;
  auto it = d.fields.find(name);
  if (it == d.fields.end()) return &none;
  if (!it->second.error.empty()) {
    j.unjudged.push_back(fmt::format("Prometheus query failed: {}: {}", it->second.query, it->second.error));
    return nullptr;
  }
  return &it->second;
}

// One field: was it watched (observe_watch.hpp), then the rule of its kind over what exists.
void judge_field(const char* field, const QueryResult& r, const ObserveData& d, const ObservePolicy& p,
                 const SeverityTable& table, const FieldContext& c, Judgement& j) {
  const GpuPoints canary = group_by_gpu(r, p.node_label, d.canary);
  const GpuPoints control = group_by_gpu(r, p.node_label, d.control);
  judge_watched(field, canary, control, c.reporting, d, p, j);
  for (const auto* pool : {&canary, &control}) {
    for (const std::string& gpu : duplicated_gpus(*pool)) c.duplicated.insert(gpu);
  }
  const std::string name = field;
  const bool relative = name == field::kThermalViolation || name == field::kPowerViolation ||
                        name == field::kClocksEventReasons;
  if (relative && control.empty() && !canary.empty()) {
    j.notes.push_back(fmt::format("the control pool has no {} series: the canary is held against none (0 %)",
                                  field_text(field)));
  }
  if (name == field::kXid) {
    judge_xids(canary, control, d.window, p, table, c.sizes, j);
  } else if (name == field::kThermalViolation) {
    // Thermal slowdown costs the workload throughput the control does not lose: fail.
    judge_throttle(field, "throttle.thermal_time", Severity::fail, canary, control, d, p, c.sizes, j);
  } else if (name == field::kPowerViolation) {
    // Power capping is normal under heavy load (health-findings.yaml rates sw_power_cap info): warn.
    judge_throttle(field, "throttle.power_time", Severity::warn, canary, control, d, p, c.sizes, j);
  } else if (name == field::kClocksEventReasons) {
    judge_hw_slowdown(canary, control, p, c.sizes, j);
  } else {
    for (const CounterFault& cf : kCounterFaults) {
      if (name == cf.field) judge_counter(cf, canary, control, table, c.sizes, j);
    }
  }
}

}  // namespace

Severity observe_xid_severity(int code, const ObservePolicy& p, const SeverityTable& table) {
  if (auto it = p.xid_overrides.find(code); it != p.xid_overrides.end()) return it->second;
  const Severity s = table.xid(code).severity;
  return s == Severity::info ? Severity::warn : s;
}

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
  std::set<std::string> duplicated;
  const FieldContext c{pool_sizes(d, p), reporting_canary_gpus(d, p), duplicated};
  const std::size_t before = j.v.findings.size();
  for (const char* f : field::kFaultFields) {
    if (const QueryResult* r = usable(d, f, j)) judge_field(f, *r, d, p, table, c, j);
  }
  if (!duplicated.empty()) {
    j.notes.push_back(fmt::format(
        "duplicate series: {} served by more than one source ({}{}): each GPU's field read from one "
        "source, never a counter across two (docs/observe.md)",
        plural(duplicated.size(), "GPU"), *duplicated.begin(), duplicated.size() > 1 ? ", ..." : ""));
  }
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
