#include "core/fleet/baseline_build.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/plural.hpp"
#include "core/base/stats.hpp"
#include "core/base/utc_time.hpp"
#include "core/baseline/unit_baseline.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/record/mig_class.hpp"
#include "core/record/record_lookup.hpp"
#include "core/rules/health_severity.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/skip_acceptance.hpp"
#include "core/verdict/suite_requirements.hpp"

namespace gpuqual {

namespace {

std::string node_of(const RunRecord& r, const std::string& path) {
  if (!r.node.k8s_node_name.empty()) return r.node.k8s_node_name;
  if (!r.node.hostname.empty()) return r.node.hostname;
  return path;
}

bool limit_matches(const FindingLimit& l, const std::string& code) {
  if (l.code.size() >= 2 && l.code.ends_with(".*"))
    return code.starts_with(l.code.substr(0, l.code.size() - 1));
  return l.code == code;
}

// Why a record is not healthy enough to build a baseline from; empty when it is. Findings first:
// they name the fault more precisely than the check status they caused.
std::string unhealthy(const RunRecord& r, const std::vector<FindingLimit>& limits) {
  if (!r.complete) return "the run did not complete";
  for (const auto& c : r.checks) {
    for (const auto& f : c.findings) {
      const std::string where = scope_name(f.gpu);
      // The severity gpuqual's tables give, never lower (docs/health.md, "Severities at judging time").
      if (with_table_severity(judging_severity_table(), f).severity == Severity::fail) {
        return fmt::format("finding {} on {}: {}", f.code, where, f.detail);
      }
      for (const auto& l : limits) {
        if (l.status == Status::fail && limit_matches(l, f.code) &&
            (!l.max_value || f.value.value_or(1) > *l.max_value)) {
          return fmt::format("finding {} on {} beyond the hard limit: {}", f.code, where, f.detail);
        }
      }
    }
  }
  for (const auto& c : r.checks) {
    if (c.status == Status::fail) return fmt::format("check {} failed: {}", c.name, c.reason);
    for (const auto& g : c.per_gpu) {
      if (g.status == Status::fail)
        return fmt::format("check {} failed on gpu {}: {}", c.name, g.gpu, g.reason);
    }
  }
  return "";
}

// The check reported each GPU of the record: a per-GPU status or a measured metric for it.
bool reports_every_gpu(const RunRecord& r, const CheckResult& c) {
  return std::all_of(r.gpus.begin(), r.gpus.end(), [&](const GpuInfo& g) {
    const bool status =
        std::any_of(c.per_gpu.begin(), c.per_gpu.end(), [&](const auto& s) { return s.gpu == g.index; });
    return status || std::any_of(c.metrics.begin(), c.metrics.end(),
                                 [&](const Metric& m) { return m.gpu == g.index && m.n() > 0; });
  });
}

// Why the record alone is partial (fewer GPUs than its node has, a check it should hold missing
// or not measured); empty when it is whole. Compared with the other records in finish().
std::string partial(const RunRecord& r) {
  if (auto expected = expected_gpu_count(r, nullptr, std::nullopt)) {
    if (auto why = subset_of_node_reason(r, *expected)) return *why;
    if (auto row = missing_gpus_row(r, *expected)) return row->reason;
  }
  std::vector<std::pair<std::string, std::string>> wanted;  // (check, who wants it)
  for (const char* c : kCoreChecks) wanted.emplace_back(c, "a built baseline");
  if (auto suite = suite_requirement(r.suite)) {
    for (const auto& c : suite->checks) wanted.emplace_back(c, "suite " + suite->suite);
  }
  for (const auto& [name, who] : wanted) {
    if (!find_check(r, name)) return fmt::format("no check {}, which {} requires", name, who);
  }
  for (const auto& c : r.checks) {
    if (c.status == Status::error) return fmt::format("check {} errored: {}", c.name, c.reason);
    if (c.status == Status::skip && !skip_is_acceptable(r, c, std::nullopt, c.reason_code, false)) {
      return fmt::format("check {} skipped: {}", c.name, c.reason);
    }
  }
  for (const char* name : kCoreChecks) {
    if (!reports_every_gpu(r, *find_check(r, name))) {
      return fmt::format("check {} did not report every one of the record's {} GPUs", name, r.gpus.size());
    }
  }
  return "";
}

std::string today_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// Five significant digits: a reviewer reads 999.83, not 999.8296623123119, and the rounding
// (1e-5 relative) is far below any run-to-run noise.
double round_significant(double x, int digits) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(x)))));
  return std::round(x * scale) / scale;
}

void remember(std::vector<std::string>& seen, const std::string& value) {
  if (std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
}

// The hard limits a built baseline carries (and that keep a record out of it).
std::vector<FindingLimit> default_finding_limits() {
  return {
      FindingLimit{"ecc.uncorrected_volatile", 0.0, Status::fail,
                   "drain the node and reset the GPU; RMA if it recurs"},
      FindingLimit{"remap.pending", std::nullopt, Status::fail,
                   "reset the GPU to apply the pending row remap"},
      FindingLimit{"remap.failure", std::nullopt, Status::fail, "drain the node and RMA the GPU"},
  };
}

// The classes a record measures (docs/mig.md, "Classes and floors"): its whole GPUs' class when
// one of its GPUs is not in MIG mode, and `<class>-mig-<profile>` for each profile of its MIG
// devices. A record of MIG devices alone says nothing of the whole GPU.
std::vector<std::string> classes_of(const RunRecord& r) {
  std::vector<std::string> classes = qualification_classes(r.gpus, r.hardware_class.slug);
  if (classes.empty()) classes.push_back(r.hardware_class.slug);
  return classes;
}

// The class a metric of `r` measures: its unit's (core/baseline/unit_baseline.hpp), a MIG slice's
// or compute instance's class when measured on a MIG device.
std::string metric_class(const RunRecord& r, const Metric& m) {
  return judged_unit(r, m.gpu, m.mig_device).slug;
}

// The MIG devices of slice class `slug` in `r`: (GPU, MIG UUID).
std::vector<std::pair<int, std::string>> devices_of_class(const RunRecord& r, const std::string& slug) {
  std::vector<std::pair<int, std::string>> out;
  for (const GpuInfo& g : r.gpus) {
    if (!g.mig || !g.mig->current) continue;
    for (const MigGpuInstance& gi : g.mig->gpu_instances) {
      for (const MigComputeInstance& ci : gi.compute_instances) {
        if (judged_unit(r, g.index, ci.uuid).slug == slug) out.emplace_back(g.index, ci.uuid);
      }
    }
  }
  return out;
}

// Check `c` reported each of a slice class's MIG `devices` (devices_of_class): a per-GPU status
// or a measured metric on it. A class without devices is not reported.
bool reports_every_device(const CheckResult& c, const std::vector<std::pair<int, std::string>>& devices) {
  return !devices.empty() && std::all_of(devices.begin(), devices.end(), [&](const auto& d) {
    const bool status = std::any_of(c.per_gpu.begin(), c.per_gpu.end(), [&](const auto& s) {
      return s.gpu == d.first && s.mig_device == d.second;
    });
    return status || std::any_of(c.metrics.begin(), c.metrics.end(), [&](const Metric& m) {
             return m.gpu == d.first && m.mig_device == d.second && m.n() > 0;
           });
  });
}

}  // namespace

void BaselineBuilder::add(const RunRecord& r, const std::string& path) {
  const std::string node = node_of(r, path);
  const std::string& slug = r.hardware_class.slug;
  std::vector<std::string> classes = classes_of(r);
  if (!options_.hardware_class.empty()) {
    if (std::find(classes.begin(), classes.end(), options_.hardware_class) == classes.end()) {
      excluded_.push_back({path, node,
                           fmt::format("{} {}, not {}", classes.size() > 1 ? "classes" : "class",
                                       fmt::join(classes, ", "), options_.hardware_class)});
      return;
    }
    classes = {options_.hardware_class};
  }
  if (slug.empty() || slug == "unknown" || slug == "mixed") {
    excluded_.push_back({path, node,
                         fmt::format("hardware class {}: not a class a baseline can be for",
                                     slug.empty() ? "(none)" : slug)});
    return;
  }
  if (std::string why = unhealthy(r, default_finding_limits()); !why.empty()) {
    excluded_.push_back({path, node, why});
    return;
  }
  if (std::string why = partial(r); !why.empty()) {
    excluded_.push_back({path, node, "partial: " + why});
    return;
  }
  for (const std::string& cls : classes) add_to_class(r, path, node, cls);
}

// A whole-GPU class holds the record's checks, its GPU count and the metrics not measured on a
// MIG device; a slice class the checks that run per MIG device and its devices' metrics, with no
// GPU count (a node's MIG layout is the `mig` check's to judge).
void BaselineBuilder::add_to_class(const RunRecord& r, const std::string& path, const std::string& node,
                                   const std::string& cls) {
  const bool slice = is_mig_class_slug(cls);
  const auto devices = slice ? devices_of_class(r, cls) : std::vector<std::pair<int, std::string>>{};
  ClassData& d = classes_[cls];
  RecordValues rv{path, node, r.started_at, slice ? 0 : static_cast<int>(r.gpus.size()), {}, {}, {}, {}};
  for (const auto& c : r.checks) {
    if (c.status == Status::skip && !skip_is_acceptable(r, c, std::nullopt, c.reason_code, false)) continue;
    if (slice && !measured_per_mig_device(c.name)) continue;
    rv.checks.push_back(c.name);
    if (slice ? reports_every_device(c, devices) : reports_every_gpu(r, c)) rv.every_gpu.push_back(c.name);
  }
  const NodeFacts& n = r.node;
  for (const auto& [key, value] : std::vector<std::pair<const char*, std::string>>{
           {"driver", n.driver_version},
           {"cuda_driver", n.cuda_driver_version},
           {"cuda_runtime", n.cuda_runtime_version},
           {"cublas", n.cublas_version},
           {"nccl", n.nccl_version},
           {"kernel", n.kernel},
           {"os", n.os},
           {"container_runtimes", fmt::format("{}", fmt::join(n.container_runtimes, ", "))},
           {"gpuqual", r.tool.version}}) {
    if (!value.empty()) rv.stack.emplace_back(key, value);
  }
  add_metric_values(r, path, cls, d, rv);
  d.records.push_back(std::move(rv));
}

// The GPU-level medians of the metrics of class `cls` in `r`.
void BaselineBuilder::add_metric_values(const RunRecord& r, const std::string& path, const std::string& cls,
                                        ClassData& d, RecordValues& rv) {
  for (std::size_t ci = 0; ci < r.checks.size(); ++ci) {
    const CheckResult& c = r.checks[ci];
    for (std::size_t mi = 0; mi < c.metrics.size(); ++mi) {
      const Metric& m = c.metrics[mi];
      if (m.n() == 0 && m.median == 0) continue;  // nothing measured
      if (metric_class(r, m) != cls) continue;
      const std::string key = m.gpu ? m.name : m.name + " (node)";
      auto [it, fresh] = d.metrics.try_emplace(key);
      MetricValues& mv = it->second;
      if (fresh) {
        mv.unit = m.unit;
        mv.direction = m.direction;
        mv.per_gpu = m.gpu.has_value();
        mv.first_path = path;
        d.metric_order.push_back(key);
      } else if (mv.unit != m.unit || mv.direction != m.direction) {
        throw InputError(
            path, fmt::format("$.checks[{}].metrics[{}]", ci, mi),
            fmt::format("{} is in {} ({} is better) here but in {} ({} is better) in {}", m.name, m.unit,
                        to_string(m.direction), mv.unit, to_string(mv.direction), mv.first_path));
      }
      rv.values.emplace_back(key, m.median);
    }
  }
}

// Records with fewer GPUs than the class's most, or without a check most records have, are
// partial: left out, so that one of them never drops gpu_count or makes a check optional.
void BaselineBuilder::leave_out_partial(ClassData& d, std::vector<ExcludedRecord>& excluded) const {
  int most = 0;
  for (const auto& rv : d.records) most = std::max(most, rv.gpus);
  std::map<std::string, std::size_t> having;
  for (const auto& rv : d.records) {
    for (const auto& c : rv.checks) ++having[c];
  }
  const std::size_t total = d.records.size();
  std::vector<RecordValues> kept;
  for (auto& rv : d.records) {
    std::string why;
    if (rv.gpus < most)
      why = fmt::format("partial: {} GPUs, where other records of the class have {}", rv.gpus, most);
    for (const auto& [check, n] : having) {
      const bool has = std::find(rv.checks.begin(), rv.checks.end(), check) != rv.checks.end();
      if (why.empty() && !has && 2 * n > total) {
        why = fmt::format("partial: no check {}, which {} of the {} records have", check, n, total);
      }
    }
    if (why.empty()) {
      kept.push_back(std::move(rv));
    } else {
      excluded.push_back({rv.path, rv.node, why});
    }
  }
  d.records = std::move(kept);
}

void BaselineBuilder::take_record(ClassData& d, const RecordValues& rv) const {
  d.included.push_back(rv.path);
  remember(d.nodes, rv.node);
  for (const auto& [key, value] : rv.stack) remember(d.stack[key], value);
  const auto ms = parse_rfc3339_ms(rv.started_at);
  if (ms && (!d.first_ms || *ms < *d.first_ms)) {
    d.first_ms = ms;
    d.first_started = rv.started_at;
  }
  if (ms && (!d.last_ms || *ms > *d.last_ms)) {
    d.last_ms = ms;
    d.last_started = rv.started_at;
  }
  std::set<std::string> in_this_run;
  for (const auto& [key, median] : rv.values) {
    MetricValues& mv = d.metrics.at(key);
    mv.by_node[rv.node].push_back(median);
    if (in_this_run.insert(key).second) ++mv.runs;
  }
}

// Every check all included records measured is required; on every GPU when each record's check
// reported each GPU (the core checks always, as partial() made sure).
void BaselineBuilder::require_checks(const ClassData& d, Baseline& b) {
  auto all_have = [&](const std::string& check, auto member) {
    return std::all_of(d.records.begin(), d.records.end(), [&](const RecordValues& rv) {
      const auto& list = rv.*member;
      return std::find(list.begin(), list.end(), check) != list.end();
    });
  };
  for (const auto& check : d.records.front().checks) {
    if (!all_have(check, &RecordValues::checks)) continue;
    CheckExpectation& e = b.checks[check];
    e.required = true;
    e.every_gpu = all_have(check, &RecordValues::every_gpu);
  }
}

void BaselineBuilder::fill_provenance(const ClassData& d, Provenance& p) {
  p.runs = static_cast<int>(d.included.size());
  p.nodes = d.nodes;
  std::sort(p.nodes.begin(), p.nodes.end());
  for (const auto& [key, values] : d.stack) p.stack[key] = fmt::format("{}", fmt::join(values, ", "));
  if (d.first_ms) p.date_range = fmt::format("{}..{}", d.first_started, d.last_started);
}

// One metric's expectation: the median of its per-node medians, its noise and tolerance from the
// spread of all its values; the nodes beyond that tolerance are noted as outliers. Nothing (with a
// note) when the median is not positive.
std::optional<MetricExpectation> BaselineBuilder::expect_metric(const std::string& key,
                                                                const MetricValues& mv, std::size_t included,
                                                                BaselineBuildResult& out) const {
  std::vector<double> node_medians, all;
  std::vector<std::pair<std::string, double>> per_node;
  for (const auto& [node, values] : mv.by_node) {
    const double med = stats::median(values);
    node_medians.push_back(med);
    per_node.emplace_back(node, med);
    all.insert(all.end(), values.begin(), values.end());
  }
  MetricExpectation e;
  e.name = mv.per_gpu ? key : key.substr(0, key.size() - std::string(" (node)").size());
  e.unit = mv.unit;
  e.direction = mv.direction;
  e.per_gpu = mv.per_gpu;
  e.expected = round_significant(stats::median(node_medians), 5);
  if (!(e.expected > 0)) {
    out.notes.push_back(fmt::format(
        "{}: the median is {}, a baseline needs a positive expected value: left out", e.name, e.expected));
    return std::nullopt;
  }
  const double cv = stats::robust_sigma(all) / e.expected;
  e.noise_cv = std::round(cv * 1e5) / 1e5;
  e.tolerance =
      std::ceil(std::max(options_.tolerance_floor, options_.spread_k * cv) * 1000.0 - 1e-9) / 1000.0;
  e.required = mv.runs == included;
  if (!e.required) {
    out.notes.push_back(
        fmt::format("{}: measured in {} of {} runs, so not required", e.name, mv.runs, included));
  }
  for (const auto& [node, med] : per_node) {
    const double change = med / e.expected - 1.0;
    const double worse = e.direction == Direction::higher ? -change : change;
    if (worse > e.tolerance) {
      out.outliers.push_back(
          fmt::format("{}: {} {:.1f} % {} expected ({:g} vs {:g} {}), beyond the tolerance of {:.1f} %", node,
                      e.name, std::fabs(change) * 100, e.direction == Direction::higher ? "below" : "above",
                      med, e.expected, e.unit, e.tolerance * 100));
    }
  }
  return e;
}

BaselineBuildResult BaselineBuilder::finish() {
  BaselineBuildResult out;
  out.excluded = std::move(excluded_);
  out.notes = std::move(notes_);
  if (classes_.size() > 1) {
    std::vector<std::string> seen;
    for (const auto& [slug, d] : classes_)
      seen.push_back(fmt::format("{} ({} records)", slug, d.records.size()));
    throw InputError("", "",
                     fmt::format("the records are of several hardware classes: {}; choose one with --class",
                                 fmt::join(seen, ", ")));
  }
  Baseline& b = out.baseline;
  b.hardware_class = options_.hardware_class;
  b.finding_limits = default_finding_limits();
  b.provenance.source = "built by gpuqual baseline build";
  b.provenance.created = options_.created.empty() ? today_utc() : options_.created;
  if (classes_.empty()) return out;
  // Plain references, not a structured binding: lambdas below capture `d` (clang refuses to
  // capture bindings before C++20's P1091 landed there).
  const std::string& slug = classes_.begin()->first;
  ClassData& d = classes_.begin()->second;
  leave_out_partial(d, out.excluded);
  for (const auto& rv : d.records) take_record(d, rv);
  if (d.records.empty()) return out;
  b.hardware_class = slug;
  require_checks(d, b);
  out.included = d.included;
  fill_provenance(d, b.provenance);
  // Every included record has the class's count; none (a class without GPUs) is no count.
  if (d.records.front().gpus > 0) b.gpu_count = d.records.front().gpus;
  if (d.nodes.size() < 3) {
    out.notes.push_back(
        fmt::format("only {}: the spread (MAD) says little about other nodes of the class; "
                    "build from more nodes before gating a fleet on it",
                    plural(d.nodes.size(), "node")));
  }
  for (const auto& key : d.metric_order) {
    const MetricValues& mv = d.metrics.at(key);
    if (mv.runs == 0) continue;  // measured only by records left out as partial
    if (auto e = expect_metric(key, mv, d.included.size(), out)) b.metrics.push_back(std::move(*e));
  }
  b.provenance.notes =
      fmt::format("{} runs on {} nodes; {} records left out; tolerance = max({:g} %, {:g} x robust CV)",
                  d.included.size(), d.nodes.size(), out.excluded.size(), options_.tolerance_floor * 100,
                  options_.spread_k);
  return out;
}

}  // namespace gpuqual
