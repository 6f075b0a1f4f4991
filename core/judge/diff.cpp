#include "core/judge/diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/base/plural.hpp"
#include "core/base/stats.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/judge/compare_summary.hpp"
#include "core/judge/diff_stack.hpp"
#include "core/record/gpu_match.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/mig_inventory.hpp"
#include "core/record/record_lookup.hpp"
#include "core/record/skip_reason.hpp"
#include "core/rules/driver_consistency.hpp"
#include "core/rules/health_severity.hpp"
#include "core/verdict/check_rows.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/inventory_findings.hpp"
#include "core/verdict/noise_model.hpp"
#include "core/verdict/outcome_badness.hpp"
#include "core/verdict/tolerance.hpp"

namespace gpuqual {

namespace {

// "Moved, not confirmed" is for a change near the allowed drop (docs/diff.md). An estimate beyond
// twice the allowed drop, and beyond it by more than 4 standard errors of the noise, fails even
// when too few samples keep the interval touching zero (4 of 5 samples at half speed). The noise
// is the class's run-to-run CV (the baseline's noise_cv) combined with the standard error of the
// two runs' samples: the before-run's CV, and the after-run's robust CV (1.4826 MAD / median),
// which a drop of most samples does not inflate the way it inflates a standard deviation.
constexpr double kFarFactor = 2.0;
constexpr double kFarSigmas = 4.0;
// A sample CV this many times the class's noise, and above the allowed drop, is no clean pass.
constexpr double kNoisyFactor = 3.0;

double robust_cv(std::span<const double> x) {
  const double med = std::fabs(stats::median(x));
  return med > 0 ? stats::robust_sigma(x) / med : 0.0;
}

double noise_sigma(const Metric& before, const Metric& after, std::optional<double> class_cv) {
  const double cb = stats::cv(before.samples), ca = robust_cv(after.samples);
  const double se = std::sqrt(cb * cb / static_cast<double>(before.samples.size()) +
                              ca * ca / static_cast<double>(after.samples.size()));
  return std::hypot(class_cv.value_or(0.0), se);
}

// The text of the interval that judge_change puts before its verdict ("-50.00 % (95 % interval ...)").
std::string interval_text(const std::string& reason) { return reason.substr(0, reason.find(": ")); }

// The rule that applies to one metric: the baseline's tolerance for that metric name when the
// tolerances file names it, else the global allowed drop.
noise::DropRule drop_rule_for(const std::string& metric, const DiffOptions& options) {
  noise::DropRule rule;
  rule.allowed_drop = options.allowed_drop;
  rule.confidence = options.confidence;
  if (options.tolerances) {
    for (const auto& e : options.tolerances->metrics) {
      if (e.name == metric) {
        rule.allowed_drop = e.tolerance;
        rule.warn_drop = e.warn_tolerance;
        break;
      }
    }
  }
  return rule;
}

class Differ {
 public:
  Differ(const RunRecord& before, const RunRecord& after, const DiffOptions& options, Verdict& v)
      : before_(before),
        after_(after),
        options_(options),
        v_(v),
        gpus_(match_gpus(before.gpus, after.gpus)) {}

  void run() {
    v_.stack_changes = stack_changes(before_, after_, gpus_);
    add_gpu_rows();
    add_metric_rows();
    add_finding_rows();
    add_check_rows();
    add_target();
    add_gpu_count_row();
    judge_after_alone();
    roll_up_gpus();
    decide();
  }

 private:
  // A per-slice metric's place on its GPU (mig_slice_place), "" for a whole GPU's.
  static std::string slice_place(const RunRecord& r, const Metric& m) {
    if (m.mig_device.empty() || !m.gpu) return "";
    const GpuInfo* g = find_gpu(r.gpus, *m.gpu);
    return g && g->mig ? mig_slice_place(*g->mig, m.mig_device) : m.mig_device;
  }

  std::string uuid_of_after(const std::optional<int>& gpu) const {
    if (!gpu) return "";
    const GpuInfo* g = find_gpu(after_.gpus, *gpu);
    return g ? g->uuid : "";
  }

  void add_gpu_rows() {
    for (const auto& p : gpus_.pairs) {
      if (p.after) continue;
      const GpuInfo* g = find_gpu(before_.gpus, p.before);
      const std::string who = g ? fmt::format("{} {} at {}", g->name, g->uuid.empty() ? "(no UUID)" : g->uuid,
                                              g->pci_bus_id.empty() ? "(no PCI bus id)" : g->pci_bus_id)
                                : "";
      const std::string why = fmt::format("GPU present before (gpu {}: {}) is missing after", p.before, who);
      v_.checks.push_back(CheckRow{"gpus", std::nullopt, Status::fail, why, 0, false});
      fails_.push_back(why);
      v_.stack_changes.push_back(fmt::format("GPU removed: gpu {} ({})", p.before, g ? g->uuid : ""));
    }
    for (int a : gpus_.only_after) {
      const GpuInfo* g = find_gpu(after_.gpus, a);
      v_.stack_changes.push_back(fmt::format("GPU added: gpu {} ({})", a, g ? g->uuid : ""));
    }
    int by_pci = 0;
    for (const auto& p : gpus_.pairs) by_pci += p.matched_by == "pci_bus_id";
    if (by_pci > 0) {
      notes_.push_back(
          fmt::format("{} GPU(s) matched by PCI bus id: a UUID was missing from a record", by_pci));
    }
  }

  void add_metric_rows() {
    // check, metric, after GPU (-1 node), the MIG slice's place ("" for a whole GPU)
    using Key = std::tuple<std::string, std::string, int, std::string>;
    std::map<Key, const Metric*> after_metrics;
    for (const auto& c : after_.checks) {
      for (const auto& m : c.metrics)
        after_metrics[{c.name, m.name, m.gpu ? *m.gpu : -1, slice_place(after_, m)}] = &m;
    }
    for (const auto& c : before_.checks) {
      for (const auto& bm : c.metrics) {
        std::optional<int> gpu;
        if (bm.gpu) {
          gpu = gpus_.after_for(*bm.gpu);
          if (!gpu) continue;  // the GPU itself is missing: its row already fails the diff
        }
        MetricRow row;
        row.check = c.name;
        row.metric = bm.name;
        row.gpu = gpu;
        row.gpu_uuid = uuid_of_after(gpu);
        row.unit = bm.unit;
        row.direction = bm.direction;
        row.expected = bm.median;
        const noise::DropRule rule = drop_rule_for(bm.name, options_);
        row.allowed_drop_pct = rule.allowed_drop * 100;
        auto it = after_metrics.find({c.name, bm.name, gpu ? *gpu : -1, slice_place(before_, bm)});
        row.mig_device = it == after_metrics.end() ? bm.mig_device : it->second->mig_device;
        if (it == after_metrics.end()) {
          // Measured by a check that passed before: lost after the upgrade, a failure. Measured
          // by one that did not pass before: nothing to hold the after-run to.
          const bool passed_before = passed(before_, c.name, bm.gpu);
          row.status = passed_before ? Status::fail : Status::error;
          row.reason =
              passed_before ? "measured before, lost after the upgrade" : "measured before, missing after";
          if (const CheckResult* ac = find_check(after_, c.name)) {
            auto [status, reason] = recorded_status(*ac, gpu);
            if (status != Status::pass)
              row.reason += fmt::format(" (check {} {}: {})", c.name, to_string(status), reason);
          } else {
            row.reason += fmt::format(" (check {} did not run after)", c.name);
          }
          push_metric(std::move(row));
          continue;
        }
        judge_pair(row, bm, *it->second, rule);
        push_metric(std::move(row));
      }
    }
  }

  // The class's measured expectation of a metric (its noise_cv); floors carry none.
  const MetricExpectation* class_expectation(const std::string& metric) const {
    for (const Baseline* b : {options_.tolerances, options_.after_baseline}) {
      if (!b || b->kind == BaselineKind::floor) continue;
      for (const auto& e : b->metrics) {
        if (e.name == metric) return &e;
      }
    }
    return nullptr;
  }

  // One metric measured before and after, decided on the samples of both (docs/diff.md).
  void judge_pair(MetricRow& row, const Metric& bm, const Metric& am, const noise::DropRule& rule) const {
    row.observed = am.median;
    if (bm.median != 0) row.delta_pct = (am.median / bm.median - 1.0) * 100.0;
    if (am.unit != bm.unit || am.direction != bm.direction) {
      row.status = Status::error;
      row.reason = fmt::format("before is {} ({} is better), after is {} ({} is better): not comparable",
                               bm.unit, to_string(bm.direction), am.unit, to_string(am.direction));
      return;
    }
    // A stored median without its samples is not a measurement the noise model can weigh.
    if (bm.samples.empty() || am.samples.empty()) {
      row.status = Status::error;
      row.reason =
          fmt::format("no samples {}: a stored median alone is not judged",
                      am.samples.empty() ? (bm.samples.empty() ? "before or after" : "after") : "before");
      return;
    }
    const auto change = noise::relative_change(bm.samples, am.samples, rule.confidence);
    if (!change) {
      row.status = Status::error;
      row.reason = "before-median is 0: a relative change is undefined";
      return;
    }
    const noise::ChangeJudgement j = noise::judge_change(*change, bm.direction, rule);
    row.status = j.status;
    row.reason = j.reason;
    const MetricExpectation* e = class_expectation(bm.name);
    const std::optional<double> class_cv = e ? e->noise_cv : std::nullopt;
    const double sigma = noise_sigma(bm, am, class_cv);
    const double far = std::max(kFarFactor * rule.allowed_drop, rule.allowed_drop + kFarSigmas * sigma);
    const char* worse = bm.direction == Direction::higher ? "drop" : "rise";
    if (j.status != Status::fail && beyond_allowed(j.worse_estimate, far)) {
      row.status = Status::fail;
      row.reason = fmt::format(
          "{}: {} far beyond the allowed {:.2f} % (over {:.2f} %, the larger of {:g} times the "
          "allowed and the allowed plus {:g} standard errors of the {:.2f} % noise): the "
          "interval does not confirm it, but it is no change near the tolerance",
          interval_text(j.reason), worse, rule.allowed_drop * 100.0, far * 100.0, kFarFactor, kFarSigmas,
          sigma * 100.0);
      return;
    }
    // Samples that scatter far more than the class's noise: the interval is honest, the run is not clean.
    const double reference = class_cv.value_or(stats::cv(bm.samples));
    const double after_cv = stats::cv(am.samples);
    if (row.status == Status::pass && after_cv > std::max(kNoisyFactor * reference, rule.allowed_drop)) {
      row.status = Status::warn;
      row.reason += fmt::format(
          "; but the after-samples scatter with CV {:.2f} %, over {:g} times the {} {:.2f} % "
          "and above the allowed {}: not a clean pass",
          after_cv * 100.0, kNoisyFactor,
          class_cv ? "class's run-to-run noise (baseline noise_cv)" : "before-run's CV", reference * 100.0,
          worse);
    }
  }

  void push_metric(MetricRow row) {
    const std::string what = fmt::format("{} {}: {}", row.metric, scope_name(row.gpu), row.reason);
    if (row.status == Status::fail) fails_.push_back(what);
    if (row.status == Status::error) unjudged_.push_back(what);
    if (row.status == Status::warn) warns_.push_back(what);
    v_.metrics.push_back(std::move(row));
  }

  void add_finding_rows() {
    struct Seen {
      std::string code;
      std::optional<int> after_gpu;  // the before GPU mapped to the after record; empty: node
      bool lost = false;             // the before GPU is missing after
      std::optional<double> value;
    };
    std::vector<Seen> before_findings;
    for (const auto& c : before_.checks) {
      for (const auto& f : c.findings) {
        Seen s{f.code, std::nullopt, false, f.value};
        if (f.gpu) {
          s.after_gpu = gpus_.after_for(*f.gpu);
          s.lost = !s.after_gpu;
        }
        before_findings.push_back(std::move(s));
      }
    }
    for (const auto& c : after_.checks) {
      for (const auto& recorded : c.findings) {
        const Finding f = with_table_severity(judging_severity_table(), recorded);  // docs/health.md
        FindingRow row;
        row.check = c.name;
        row.finding = f;
        const Seen* old = nullptr;
        for (const auto& s : before_findings) {
          if (!s.lost && s.code == f.code && s.after_gpu == f.gpu) old = &s;
        }
        const bool grew = old && f.value && old->value && *f.value > *old->value;
        if (!old) {
          if (f.severity == Severity::info) {
            row.status = Status::pass;
            row.reason = "new since the before-run, informational";
          } else {
            row.status = Status::fail;
            row.reason = fmt::format("new since the before-run ({} severity){}", to_string(f.severity),
                                     f.action.empty() ? "" : ": " + f.action);
          }
        } else if (grew && f.severity != Severity::info) {
          row.status = Status::fail;
          row.reason = fmt::format("grew from {:g} to {:g} since the before-run", *old->value, *f.value);
        } else if (f.severity == Severity::fail) {
          row.status = Status::fail;
          row.reason = "present before too, and fails the node";
        } else if (f.severity == Severity::warn) {
          row.status = Status::warn;
          row.reason = "present before too (not new)";
        } else {
          row.status = Status::pass;
          row.reason = "informational, present before too";
        }
        not_green_when_unmeasured(row, c);
        const std::string what = fmt::format("finding {} {}: {}", f.code, scope_name(f.gpu), row.reason);
        if (row.status == Status::fail) fails_.push_back(what);
        if (row.status == Status::warn) warns_.push_back(what);
        v_.findings.push_back(std::move(row));
      }
    }
    // The after-node's own inventory decides whatever the before-record holds.
    for (FindingRow& row : inventory_finding_rows(after_)) {
      const std::string what =
          fmt::format("finding {} {}: {}", row.finding.code, scope_name(row.finding.gpu), row.finding.detail);
      if (row.status == Status::fail) fails_.push_back(what);
      if (row.status == Status::warn) warns_.push_back(what);
      if (row.status == Status::error) unjudged_.push_back(what);  // a GPU NVML could not read
      v_.findings.push_back(std::move(row));
    }
  }

  // Whether `check` passed (or warned) in `r` at the scope of `gpu` (an index of `r`).
  static bool passed(const RunRecord& r, const std::string& check, const std::optional<int>& gpu) {
    const CheckResult* c = find_check(r, check);
    if (!c) return false;
    const Status s = recorded_status(*c, gpu).first;
    return s == Status::pass || s == Status::warn;
  }

  // One row per check × GPU the check touched after (the JUnit testcases), like compare. A check
  // that passed before and ends skip or error after was lost in the upgrade: fail. Only a skip
  // that is not applicable on both sides (one GPU before and after) is no change.
  void add_check_rows() {
    std::set<std::string> after_names;
    for (const auto& c : after_.checks) {
      after_names.insert(c.name);
      for (CheckRow& row : check_rows(after_, c, v_, /*skipped_metrics_place_gpu=*/true)) {
        const auto [status, reason] = recorded_status(c, row.gpu, row.mig_device);
        const std::string where = scope_name(row.gpu) + (row.mig_device.empty() ? "" : " " + row.mig_device);
        std::optional<int> before_gpu;
        if (row.gpu) before_gpu = gpus_.before_for(*row.gpu);
        const bool passed_before = passed(before_, c.name, row.gpu ? before_gpu : std::nullopt);
        const bool not_applicable = status == Status::skip &&
                                    is_not_applicable_code(recorded_reason_code(c, row.gpu, row.mig_device));
        if (status == Status::fail)
          fails_.push_back(fmt::format("check {} {} failed after: {}", c.name, where, reason));
        if ((status == Status::error || (status == Status::skip && (!row.skip_accepted || not_applicable))) &&
            passed_before) {
          row.status = Status::fail;
          row.reason = fmt::format("passed before, {} after the upgrade: {}",
                                   status == Status::skip ? "skipped" : "errored", reason);
          fails_.push_back(fmt::format("check {} {} lost after the upgrade ({}: {})", c.name, where,
                                       to_string(status), reason));
          row.skip_accepted = false;
        } else if (status == Status::error) {
          unjudged_.push_back(fmt::format("check {} {} errored after: {}", c.name, where, reason));
        } else if (status == Status::skip && !row.skip_accepted) {
          unjudged_.push_back(
              fmt::format("{}{} skipped after: {}", c.name, row.gpu ? " " + where : "", reason));
        }
        if (status == Status::warn)
          warns_.push_back(fmt::format("check {} {} warned after: {}", c.name, where, reason));
        v_.checks.push_back(std::move(row));
      }
    }
    for (const auto& c : before_.checks) {
      if (after_names.count(c.name) || c.status == Status::skip) continue;
      const bool passed_before = c.status == Status::pass || c.status == Status::warn;
      const std::string why = fmt::format("ran before ({}), not in the after-record{}", to_string(c.status),
                                          passed_before ? ": lost after the upgrade" : "");
      v_.checks.push_back(
          CheckRow{c.name, std::nullopt, passed_before ? Status::fail : Status::error, why, 0, false});
      (passed_before ? fails_ : unjudged_).push_back(fmt::format("check {}: {}", c.name, why));
    }
  }

  // The after-record against the target stack, as compare judges it.
  void add_target() {
    if (!options_.target) return;
    const std::size_t first = v_.findings.size();
    for (auto& why : add_target_rows(after_, *options_.target, v_)) unjudged_.push_back(std::move(why));
    for (std::size_t i = first; i < v_.findings.size(); ++i) {
      const FindingRow& f = v_.findings[i];
      fails_.push_back(fmt::format("finding {} {}: {}", f.finding.code, scope_name(f.finding.gpu), f.reason));
    }
  }

  // Fewer GPUs than the node should have, by the after-record's own sources (baseline, labels)
  // or the before-record's labels: a GPU lost in both records is still lost. A GPU the
  // before-record holds and the after-record lacks already fails above (add_gpu_rows): the row
  // here comes only when those do not account for every missing GPU.
  void add_gpu_count_row() {
    std::optional<ExpectedGpus> best = expected_gpu_count(after_, options_.after_baseline, std::nullopt);
    if (auto before = expected_gpu_count(before_.node.k8s_labels, nullptr, std::nullopt)) {
      before->source = "the before-record's " + before->source.substr(before->source.find("label"));
      if (!best || before->count > best->count) best = before;
    }
    const auto lost =
        std::count_if(gpus_.pairs.begin(), gpus_.pairs.end(), [](const auto& p) { return !p.after; });
    if (!best || best->count - static_cast<int>(after_.gpus.size()) <= lost) return;
    if (auto row = missing_gpus_row(after_, *best)) {
      fails_.push_back(fmt::format("finding gpu.missing node: {}", row->reason));
      v_.checks.push_back(CheckRow{"gpus", std::nullopt, Status::fail, row->reason, 0, false});
      v_.findings.push_back(std::move(*row));
    }
  }

  // diff is never weaker than compare (docs/diff.md): the after-record judged alone, against its
  // class's baseline, shown as one row; the worse verdict stands (decide).
  void judge_after_alone() {
    if (!options_.after_baseline) {
      if (!options_.after_baseline_missing.empty()) {
        const std::string why =
            options_.after_baseline_missing + ": the after-record cannot be judged as compare judges it";
        unjudged_.push_back(why);
        v_.checks.push_back(
            CheckRow{"baseline", std::nullopt, Status::error, options_.after_baseline_missing, 0, false});
      }
      return;
    }
    CompareOptions co;
    co.with_stack = false;                                        // --target: add_target judged it already
    co.before_gpu_count = static_cast<int>(before_.gpus.size());  // a source of the node's GPU count
    co.unit_baselines = options_.unit_baselines;                  // the slices', as compare finds them
    alone_ = compare_record(after_, options_.after_baseline, co);
    if (options_.after_baseline->kind == BaselineKind::floor) notes_.push_back(kFloorNote);
    if (alone_->outcome == Outcome::pass) return;
    const Status s = alone_->outcome == Outcome::fail           ? Status::fail
                     : alone_->outcome == Outcome::inconclusive ? Status::error
                                                                : Status::warn;
    v_.checks.push_back(CheckRow{"baseline", std::nullopt, s, alone_text(), 0, false});
  }

  // "against h200.yaml: gemm.bf16.tflops gpu 1: -55.0% vs expected ..." (the first reason only).
  std::string alone_text() const {
    std::string text = "against " + options_.after_baseline->origin;
    for (const auto& r : alone_->reasons) {
      if (r != kFloorNote) return text + ": " + r;
    }
    return text;
  }

  // The worse of diff's own verdict and compare's of the after-record: compare's reasons decide
  // when it is worse; else the verdict notes it.
  void merge_after_alone() {
    if (!alone_ || alone_->outcome == Outcome::pass) return;
    const Outcome own = !fails_.empty()      ? Outcome::fail
                        : !unjudged_.empty() ? Outcome::inconclusive
                        : !warns_.empty()    ? Outcome::warn
                                             : Outcome::pass;
    if (outcome_badness(alone_->outcome) <= outcome_badness(own)) {
      notes_.push_back(
          fmt::format("the after-record alone: {} {}", to_string(alone_->outcome), alone_text()));
      return;
    }
    auto& list = alone_->outcome == Outcome::fail           ? fails_
                 : alone_->outcome == Outcome::inconclusive ? unjudged_
                                                            : warns_;
    for (const auto& r : alone_->reasons) {
      if (r != kFloorNote)
        list.push_back(fmt::format("the after-record against {}: {}", options_.after_baseline->origin, r));
    }
  }

  void roll_up_gpus() {
    for (const auto& g : after_.gpus) v_.per_gpu[g.index] = Status::pass;
    auto fold = [&](const std::optional<int>& gpu, Status s) {
      if (!gpu || s == Status::skip) return;
      auto it = v_.per_gpu.find(*gpu);
      if (it != v_.per_gpu.end()) it->second = worse_of(it->second, s);
    };
    for (const auto& m : v_.metrics) fold(m.gpu, m.status);
    for (const auto& f : v_.findings) fold(f.finding.gpu, f.status);
    for (const auto& c : v_.checks) fold(c.gpu, c.status);
    if (alone_) {
      for (const auto& [gpu, s] : alone_->per_gpu) fold(gpu, s);
    }
  }

  void decide() {
    std::size_t judged = 0;
    for (const auto& m : v_.metrics) {
      judged += m.status == Status::pass || m.status == Status::warn || m.status == Status::fail;
    }
    const bool any_check_ran =
        std::any_of(after_.checks.begin(), after_.checks.end(), [](const CheckResult& c) {
          return c.status == Status::pass || c.status == Status::warn || c.status == Status::fail;
        });
    if (judged == 0 && !any_check_ran)
      unjudged_.push_back("nothing to compare: no metric measured in both records and no check ran after");
    // A run that did not finish is never a pass (docs/diff.md): what it lacks is unknown.
    if (!after_.complete) {
      unjudged_.push_back(
          "the after-record is from a run that did not complete (complete: false): interrupted or still "
          "running");
    }
    if (!before_.complete) {
      unjudged_.push_back(
          "the before-record is from a run that did not complete (complete: false): a partial reference");
    }
    if (!before_.node.hostname.empty() && !after_.node.hostname.empty() &&
        before_.node.hostname != after_.node.hostname) {
      warns_.push_back(fmt::format("the records come from different hosts ({} before, {} after)",
                                   before_.node.hostname, after_.node.hostname));
    }
    if (auto note = reboot_note(before_.node, after_.node)) notes_.push_back(*note);
    // An overridden class is said on every verdict (docs/hardware-class.md).
    if (auto note = class_override_note(before_)) notes_.push_back("before: " + *note);
    if (auto note = class_override_note(after_)) notes_.push_back("after: " + *note);
    // A changed harness or user-mode driver confounds the comparison: said, as a warning.
    const std::string tool_before = before_.tool.version + " (" + before_.tool.git_revision + ")";
    const std::string tool_after = after_.tool.version + " (" + after_.tool.git_revision + ")";
    if (tool_before != tool_after) {
      warns_.push_back(
          fmt::format("different gpuqual builds measured: {} before, {} after (a changed harness "
                      "confounds the comparison)",
                      tool_before, tool_after));
    }
    const std::string umd_before = compat_attribute(before_, "user_mode_driver");
    const std::string umd_after = compat_attribute(after_, "user_mode_driver");
    if (!umd_before.empty() && !umd_after.empty() && umd_before != umd_after) {
      warns_.push_back(
          fmt::format("different user-mode drivers measured: {} before, {} after", umd_before, umd_after));
    }
    merge_after_alone();
    decide_outcome(v_, fails_, unjudged_, warns_, notes_, options_.strict);
  }

  // The compat check's record of which user-mode driver measured ("host 580.95.05",
  // "forward-compat 580.65.06 (/usr/local/cuda/compat)"); "" when the record has none.
  static std::string compat_attribute(const RunRecord& r, const std::string& key) {
    for (const auto& c : r.checks) {
      if (c.name != "compat") continue;
      if (auto it = c.attributes.find(key); it != c.attributes.end()) return it->second;
    }
    return "";
  }

  const RunRecord& before_;
  const RunRecord& after_;
  const DiffOptions& options_;
  Verdict& v_;
  GpuMatching gpus_;
  std::optional<Verdict> alone_;  // compare's verdict of the after-record against after_baseline
  std::vector<std::string> fails_, unjudged_, warns_, notes_;
};

// The after-record judged alone (compare), when it did not pass: "the after-record alone FAIL
// (against h200-sxm-141gb.yaml: ...)".
void add_alone_part(const Verdict& v, std::vector<std::string>& parts) {
  for (const auto& c : v.checks) {
    if (c.check != "baseline" || c.gpu) continue;
    const char* word = c.status == Status::fail ? "FAIL" : c.status == Status::warn ? "WARN" : "INCONCLUSIVE";
    parts.push_back(fmt::format("the after-record alone {} ({})", word, c.reason));
  }
}

// A GPU of the before-record missing after is one row each; gpu.missing counts them and more.
std::size_t missing_gpus(const Verdict& v) {
  std::size_t missing = 0;
  for (const auto& c : v.checks) {
    missing += c.check == "gpus" && c.status == Status::fail && c.reason.rfind("GPU present before", 0) == 0;
  }
  for (const auto& f : v.findings) {
    if (f.finding.code == "gpu.missing" && f.status == Status::fail && f.finding.value) {
      missing = std::max(missing, static_cast<std::size_t>(*f.finding.value));
    }
  }
  return missing;
}

// "gpuqual diff: FAIL node-a h200-sxm-141gb: 1 of 40 metrics regressed (gemm.bf16.tflops gpu 3
// -5.1% < -2.0%), 1 GPU missing, 1 failing finding (ecc.uncorrected_volatile gpu 2); 3 stack
// changes (driver: 550.90.07 → 570.133.20, ...)"
// "2 failing findings (ecc.uncorrected_volatile gpu 2)": how many fail, and the first.
void add_findings_part(const Verdict& v, std::vector<std::string>& parts) {
  std::size_t bad_findings = 0;
  const FindingRow* first = nullptr;
  for (const auto& f : v.findings) {
    if (f.status == Status::fail && !bad_findings++) first = &f;
  }
  if (first) {
    parts.push_back(fmt::format("{} ({} {})", plural(bad_findings, "failing finding"), first->finding.code,
                                scope_name(first->finding.gpu)));
  }
}

// The metric rows counted for the summary, with the worst regression (or unconfirmed move).
struct MetricTally {
  std::size_t judged = 0, failed = 0, warned = 0, unjudged = 0, lost = 0;
  const MetricRow* worst = nullptr;
};

MetricTally tally_metrics(const Verdict& v) {
  MetricTally t;
  double worst_drop = -1e300;
  for (const auto& m : v.metrics) {
    if (m.status == Status::error) {
      ++t.unjudged;
      continue;
    }
    if (!m.observed) {  // measured before, not after: not a regression, a loss
      t.lost += m.status == Status::fail;
      continue;
    }
    ++t.judged;
    t.failed += m.status == Status::fail;
    t.warned += m.status == Status::warn;
    if ((m.status == Status::fail || m.status == Status::warn) && m.delta_pct) {
      const double drop = m.direction == Direction::higher ? -*m.delta_pct : *m.delta_pct;
      if (drop > worst_drop) {
        worst_drop = drop;
        t.worst = &m;
      }
    }
  }
  return t;
}

std::string diff_summary(const Verdict& v) {
  std::vector<std::string> parts;
  const MetricTally t = tally_metrics(v);
  const auto [judged, failed, warned, unjudged, lost, worst] = t;
  const auto described = [](const MetricRow& m) {
    return fmt::format("{} {} {}", m.metric, scope_name(m.gpu), delta_vs_allowed(m));
  };
  if (failed) {
    parts.push_back(fmt::format("{} of {} metrics regressed{}", failed, judged,
                                worst ? " (" + described(*worst) + ")" : ""));
  } else if (warned) {
    parts.push_back(fmt::format("{} of {} metrics moved, not confirmed{}", warned, judged,
                                worst ? " (" + described(*worst) + ")" : ""));
  } else {
    parts.push_back(fmt::format("{} metrics within noise", judged));
  }
  if (lost) parts.push_back(fmt::format("{} lost after the upgrade", plural(lost, "metric")));
  if (unjudged) parts.push_back(fmt::format("{} not judged", unjudged));
  // The first check that did not run after: lost in the upgrade, or a skip that could not measure.
  for (const auto& c : v.checks) {
    const bool lost_check =
        c.status == Status::fail && c.reason.find(" after the upgrade") != std::string::npos;
    if (lost_check || (c.status == Status::skip && !c.skip_accepted)) {
      parts.push_back(fmt::format("{}{}: {}", c.check, c.gpu ? " " + scope_name(c.gpu) : "", c.reason));
      break;
    }
  }
  add_alone_part(v, parts);
  const std::size_t missing = missing_gpus(v);
  if (missing) parts.push_back(fmt::format("{} missing", plural(missing, "GPU")));
  add_findings_part(v, parts);
  if (class_overrides_noted(v.reasons)) parts.push_back("class is an override (--class)");
  const std::size_t n = v.stack_changes.size();
  const std::string stack = n == 0 ? "stack unchanged"
                                   : fmt::format("{} ({}{})", plural(n, "stack change"),
                                                 v.stack_changes.front(), n > 1 ? ", ..." : "");
  return node_summary_line("gpuqual diff", v, fmt::format("{}; {}", fmt::join(parts, ", "), stack));
}

}  // namespace

Verdict diff_records(const RunRecord& before, const RunRecord& after, const DiffOptions& options) {
  Verdict v = record_verdict("diff", after);
  v.strict = options.strict;
  v.baseline = options.before_origin;
  v.stack = stack_components(after);
  Differ(before, after, options, v).run();
  v.summary = diff_summary(v);
  return v;
}

}  // namespace gpuqual
