// `gpuqual compare`: every metric of every GPU against the baseline, every finding against the
// hard limits, roll-ups per check × GPU, per GPU and overall. Semantics: docs/compare.md;
// per-value rules: compare_rules.hpp.
#include "core/judge/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/judge/compare_requirements.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/judge/compare_slices.hpp"
#include "core/judge/compare_summary.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/record_lookup.hpp"
#include "core/verdict/check_rows.hpp"
#include "core/verdict/driver_upgrade.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/inventory_findings.hpp"

namespace gpuqual {

namespace {

const MetricExpectation* find_expectation(const Baseline* b, const std::string& name) {
  if (!b) return nullptr;
  for (const auto& e : b->metrics) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string missing_reason(const RunRecord& r, const std::string& check, const std::optional<int>& gpu,
                           bool required) {
  std::string why = required ? "required metric missing from the record" : "optional metric not measured";
  if (const CheckResult* c = find_check(r, check)) {
    auto [status, reason] = recorded_status(*c, gpu);
    if (status != Status::pass) why += fmt::format(" (check {} {}: {})", check, to_string(status), reason);
  } else {
    why += " (no check in the record reported it)";
  }
  return why;
}

using Scope = std::pair<std::string_view, int>;  // (metric, gpu index or -1 for node), names in the record
int scope_key(const std::optional<int>& gpu) { return gpu ? *gpu : -1; }

// Gives the row its GPU's UUID, when the row is on a GPU of the record.
void set_gpu_uuid(const RunRecord& r, const std::optional<int>& gpu, MetricRow& row) {
  for (const auto& g : r.gpus) {
    if (gpu && g.index == *gpu) row.gpu_uuid = g.uuid;
  }
}

// The row of a recorded metric `m` of check `check` that expectation `e` (null: none) does not
// judge: no baseline, not in it, or in it for another scope or GPU count than the record's.
MetricRow unjudged_metric_row(const RunRecord& r, const Baseline* b, const std::string& check,
                              const Metric& m, const MetricExpectation* e, int gpus) {
  MetricRow row = recorded_metric_row(check, m);
  if (!b) {
    row.status = Status::skip;
    row.reason = fmt::format("no baseline for class {}", r.hardware_class.slug);
  } else if (!e) {
    row.status = Status::skip;
    row.reason = "not in the baseline";
  } else {
    row.expected = e->expected;
    row.allowed_drop_pct = e->tolerance * 100;
    row.status = Status::error;
    if (e->per_gpu != m.gpu.has_value()) {
      row.reason = e->per_gpu ? "the baseline judges it per GPU, the record has it for the node"
                              : "the baseline judges it for the node, the record has it per GPU";
    } else {
      row.reason = fmt::format("the baseline holds for {} GPUs, this node has {}", *b->gpu_count, gpus);
    }
  }
  return row;
}

// One row per metric the record has: judged against its expectation where the baseline has one
// for the metric's scope and the node's GPU count.
void add_recorded_metric_rows(const RunRecord& r, const Baseline* b, std::vector<Scope>& seen, Verdict& v) {
  const int gpus = static_cast<int>(r.gpus.size());
  for (const auto& c : r.checks) {
    for (const auto& m : c.metrics) {
      if (!m.mig_device.empty()) continue;  // a slice's: judged by its class (compare_slices.hpp)
      seen.emplace_back(m.name, scope_key(m.gpu));
      const MetricExpectation* e = find_expectation(b, m.name);
      MetricRow row;
      if (e && e->per_gpu == m.gpu.has_value() && (e->per_gpu || !b->gpu_count || *b->gpu_count == gpus)) {
        row = judge_metric(c.name, m, *e);
      } else {
        row = unjudged_metric_row(r, b, c.name, m, e, gpus);
      }
      set_gpu_uuid(r, m.gpu, row);
      v.metrics.push_back(std::move(row));
    }
  }
}

// The row of expectation `e` at scope `gpu` that nothing in the record answered.
MetricRow missing_metric_row(const RunRecord& r, const MetricExpectation& e, const std::optional<int>& gpu) {
  MetricRow row;
  row.check = producing_check(r, e.name);
  row.metric = e.name;
  row.gpu = gpu;
  row.unit = e.unit;
  row.direction = e.direction;
  row.expected = e.expected;
  row.allowed_drop_pct = e.tolerance * 100;
  row.status = e.required ? Status::error : Status::skip;
  row.reason = (e.per_gpu && !gpu)
                   ? std::string(e.required ? "required per-GPU metric, but the record has no GPUs"
                                            : "optional per-GPU metric, but the record has no GPUs")
                   : missing_reason(r, row.check, gpu, e.required);
  set_gpu_uuid(r, gpu, row);
  return row;
}

// Expectations nothing in the record answered (`seen`, sorted): one row per GPU of a per-GPU
// expectation, one for the node otherwise.
void add_missing_metric_rows(const RunRecord& r, const Baseline& b, const std::vector<Scope>& seen,
                             Verdict& v) {
  for (const auto& e : b.metrics) {
    std::vector<std::optional<int>> scopes;
    if (e.per_gpu) {
      // A GPU in MIG mode is measured in its MIG devices, which their classes judge.
      for (const auto& g : r.gpus) {
        if (!gpu_in_mig_mode(g)) scopes.emplace_back(g.index);
      }
      if (r.gpus.empty()) scopes.emplace_back(std::nullopt);  // no GPUs at all: one row says so
    } else {
      scopes.emplace_back(std::nullopt);
    }
    for (const auto& gpu : scopes) {
      if (std::binary_search(seen.begin(), seen.end(), Scope{e.name, scope_key(gpu)})) continue;
      v.metrics.push_back(missing_metric_row(r, e, gpu));
    }
  }
}

// The metric rows: every metric the record has, then every expectation nothing in it answered.
void add_metric_rows(const RunRecord& r, const Baseline* b, Verdict& v) {
  // What the record answered, sorted once for the expectations' lookups below (a std::set of
  // string copies was 5 % of matrix build).
  std::vector<Scope> seen;
  std::size_t n_metrics = 0;
  for (const auto& c : r.checks) n_metrics += c.metrics.size();
  seen.reserve(n_metrics);
  v.metrics.reserve(v.metrics.size() + n_metrics + (b ? b->metrics.size() : 0));
  add_recorded_metric_rows(r, b, seen, v);
  if (!b) return;
  std::sort(seen.begin(), seen.end());
  add_missing_metric_rows(r, *b, seen, v);
}

void add_finding_rows(const RunRecord& r, const Baseline* b, Verdict& v) {
  for (const auto& c : r.checks) {
    for (const auto& f : c.findings) {
      FindingRow row = judge_finding(c.name, f, b);
      not_green_when_unmeasured(row, c);
      v.findings.push_back(std::move(row));
    }
  }
  for (FindingRow& row : inventory_finding_rows(r)) v.findings.push_back(std::move(row));
}

// The check rows (core/verdict/check_rows.hpp), then a row for each required check the record lacks.
void add_check_rows(const RunRecord& r, const Baseline* b, Verdict& v) {
  std::set<std::string> in_record;
  for (const auto& c : r.checks) {
    in_record.insert(c.name);
    for (CheckRow& row : check_rows(r, c, v, /*skipped_metrics_place_gpu=*/false)) {
      if (row.status == Status::skip && !row.skip_accepted && b && b->check_optional(c.name)) {
        row.skip_accepted = true;
        row.reason = "optional in the baseline: " + row.reason;
      }
      v.checks.push_back(std::move(row));
    }
  }
  // A required metric whose check is not in the record at all: the check did not run there.
  std::set<std::pair<std::string, int>> added;
  for (const auto& m : v.metrics) {
    if (m.status != Status::error || in_record.count(m.check)) continue;
    if (!added.insert({m.check, scope_key(m.gpu)}).second) continue;
    v.checks.push_back(CheckRow{m.check, m.gpu, Status::error,
                                fmt::format("check did not run: {} {}", m.metric, m.reason), 0, false});
  }
}

// Fewer GPUs than the node should have: a fail no benchmark of the remaining GPUs can show. A
// count no source gives, or a run given a subset of the node's GPUs, cannot vouch for the whole
// node: inconclusive (docs/compare.md, "What earns a PASS"). Returns those reasons.
std::vector<std::string> add_gpu_count_rows(const RunRecord& r, const Baseline* b, const CompareOptions& o,
                                            Verdict& v) {
  const auto expected = expected_gpu_count(r, b, o.expect_gpus, o.before_gpu_count);
  std::optional<std::string> unknown;
  if (expected) unknown = subset_of_node_reason(r, *expected);
  if (!unknown && expected) {
    if (auto row = missing_gpus_row(r, *expected)) {
      v.checks.push_back(CheckRow{"gpus", std::nullopt, Status::fail, row->reason, 0, false});
      v.findings.push_back(std::move(*row));
      return {};
    }
  }
  // diff's before-record can show a GPU lost, never vouch that none was: it may have lost the
  // same GPU. Without another source the count is as unknown as compare of the after alone.
  if (!unknown && !expected_gpu_count(r, b, o.expect_gpus, std::nullopt)) {
    unknown = fmt::format(
        "the node's GPU count is unknown (no --expect-gpus, no gpu_count in the baseline, no "
        "nvidia.com/gpu label or capacity, no PCI bus reading{}): whether every GPU was judged "
        "cannot be told",
        o.before_gpu_count ? "; the before-record may have lost the same GPUs" : "");
  }
  if (unknown) {
    v.checks.push_back(CheckRow{"gpus", std::nullopt, Status::error, *unknown, 0, false});
    return {"gpus: " + *unknown};
  }
  return {};
}

}  // namespace

std::vector<std::string> add_target_rows(const RunRecord& r, const Target& target, Verdict& v) {
  TargetJudgement j = judge_target(r, target);
  for (auto& row : j.off_target) {
    v.checks.push_back(CheckRow{"stack", row.finding.gpu, Status::fail, row.reason, 0, false});
    v.findings.push_back(std::move(row));
  }
  std::vector<std::string> unjudged;
  for (const auto& why : j.unknown) {
    v.checks.push_back(CheckRow{"stack", std::nullopt, Status::error, why, 0, false});
    unjudged.push_back("stack: " + why);
  }
  return unjudged;
}

namespace {

void roll_up_gpus(const RunRecord& r, const Baseline* b, Verdict& v) {
  for (const auto& g : r.gpus) v.per_gpu[g.index] = b ? Status::pass : Status::skip;
  auto fold = [&](const std::optional<int>& gpu, Status s) {
    if (!gpu) return;
    auto it = v.per_gpu.find(*gpu);
    if (it != v.per_gpu.end()) it->second = worse_of(it->second, s);
  };
  // Metrics the baseline does not name (skip) are shown but do not judge a GPU.
  for (const auto& m : v.metrics) {
    if (m.status != Status::skip) fold(m.gpu, m.status);
  }
  for (const auto& f : v.findings) fold(f.finding.gpu, f.status);
  for (const auto& c : v.checks) fold(c.gpu, c.status);
}

bool nothing_measured(const RunRecord& r) {
  for (const auto& c : r.checks) {
    if (c.status == Status::pass || c.status == Status::warn) return false;
    for (const auto& m : c.metrics) {
      if (m.n() > 0) return false;
    }
  }
  return true;
}

void decide(const RunRecord& r, const Baseline* b, const CompareOptions& options, Verdict& v,
            std::vector<std::string> unjudged) {
  std::vector<std::string> fails, warns;
  // The most basic reasons first: nothing to judge against, nothing measured.
  std::vector<std::string> basic;
  if (!b) basic.push_back(fmt::format("no baseline for class {}", r.hardware_class.slug));
  if (nothing_measured(r)) basic.push_back("nothing was measured (no metric and no passing check)");
  unjudged.insert(unjudged.begin(), basic.begin(), basic.end());
  // The reason lists take only fail, error and warn rows: the text is made for those alone (a
  // gate formats it for every row of 10,000 records otherwise).
  auto list_for = [&](Status s) -> std::vector<std::string>* {
    if (s == Status::fail) return &fails;
    if (s == Status::error) return &unjudged;
    if (s == Status::warn) return &warns;
    return nullptr;
  };
  for (const auto& m : v.metrics) {
    if (auto* list = list_for(m.status))
      list->push_back(fmt::format("{} {}: {}", m.metric, scope_name(m.gpu), m.reason));
  }
  for (const auto& f : v.findings) {
    // A finding row in error is its check's error, which the record's check statuses below list;
    // an inventory row's (a GPU NVML could not read: core/verdict/lost_gpus.hpp) is its own.
    if (f.status == Status::error && f.check != kInventoryCheck) continue;
    if (auto* list = list_for(f.status)) {
      list->push_back(fmt::format("finding {} {}: {}", f.finding.code, scope_name(f.finding.gpu), f.reason));
    }
  }
  // A skip that could not measure ("NVML unavailable") never passes; a not-applicable or optional
  // one does not decide (core/verdict/skip_acceptance.hpp).
  for (const auto& c : v.checks) {
    if (c.status == Status::skip && !c.skip_accepted) {
      unjudged.push_back(
          fmt::format("{}{} skipped: {}", c.check, c.gpu ? " " + scope_name(c.gpu) : "", c.reason));
    }
  }
  // The record's own check statuses (a check may fail or error with no metric to show for it).
  for (const auto& c : r.checks) {
    std::vector<std::pair<std::optional<int>, GpuCheckStatus>> results{
        {std::nullopt, {0, c.status, c.reason, c.reason_code}}};
    for (const auto& g : c.per_gpu) results.push_back({g.gpu, g});
    for (const auto& [gpu, s] : results) {
      if (auto* list = list_for(s.status)) {
        list->push_back(
            fmt::format("check {} {} {}: {}", c.name, scope_name(gpu), to_string(s.status), s.reason));
      }
    }
  }
  std::vector<std::string> notes;
  if (b && b->kind == BaselineKind::floor) notes.push_back(kFloorNote);
  if (auto note = class_override_note(r)) notes.push_back(*note);  // docs/hardware-class.md
  decide_outcome(v, fails, unjudged, warns, notes, options.strict);
}

}  // namespace

Verdict record_verdict(std::string kind, const RunRecord& r) {
  Verdict v;
  v.kind = std::move(kind);
  v.hostname = r.node.hostname;
  v.run_id = r.run_id;
  v.hardware_class = r.hardware_class.slug;
  v.driver_version = r.node.driver_version;
  v.cuda_driver_version = r.node.cuda_driver_version;
  return v;
}

Verdict compare_record(const RunRecord& r, const Baseline* b, const CompareOptions& options) {
  Verdict v = record_verdict("compare", r);
  v.strict = options.strict;
  v.baseline = b ? b->origin : "";
  if (options.with_stack) v.stack = stack_components(r);
  add_metric_rows(r, b, v);
  UnitBaselines units(r, b, options.unit_baselines);
  std::vector<std::string> slices = add_slice_metric_rows(r, units, v);
  add_finding_rows(r, b, v);
  add_check_rows(r, b, v);
  std::vector<std::string> unjudged = add_gpu_count_rows(r, b, options, v);
  unjudged.insert(unjudged.end(), slices.begin(), slices.end());
  for (auto& why : add_requirement_rows(r, b, v)) unjudged.push_back(std::move(why));
  if (options.target) {
    for (auto& why : add_target_rows(r, *options.target, v)) unjudged.push_back(std::move(why));
  }
  roll_up_gpus(r, b, v);
  decide(r, b, options, v, std::move(unjudged));
  v.summary = compare_summary(v, b != nullptr);
  // A run during the GPU Operator's driver upgrade (its validation-required step,
  // docs/gpu-operator-nvsentinel.md): the condition's message and the logs say which step the
  // verdict was taken at.
  if (const std::string step = driver_upgrade_state(r.node.k8s_labels); !step.empty())
    v.summary += fmt::format(", GPU Operator driver upgrade: {}", step);
  return v;
}

Verdict compare_with_baselines(const RunRecord& r, BaselineSource& source, CompareOptions options) {
  options.unit_baselines = &source;
  return compare_record(r, source.for_class(r.hardware_class.slug), options);
}

}  // namespace gpuqual
