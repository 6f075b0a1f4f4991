#include "core/judge/compare_slices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "core/judge/compare_requirements.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/record/mig_class.hpp"
#include "core/record/mig_inventory.hpp"
#include "core/record/record_lookup.hpp"

namespace gpuqual {

namespace {

const MetricExpectation* per_gpu_expectation(const Baseline* b, const std::string& name) {
  if (!b) return nullptr;
  for (const MetricExpectation& e : b->metrics) {
    if (e.name == name && e.per_gpu) return &e;
  }
  return nullptr;
}

MetricRow slice_row(const CheckResult& c, const Metric& m, const std::string& slug, const Baseline* b) {
  const MetricExpectation* e = per_gpu_expectation(b, m.name);
  MetricRow row = e ? judge_metric(c.name, m, *e) : recorded_metric_row(c.name, m);
  if (!e) {
    row.status = Status::skip;
    row.reason = b ? std::string("not in the baseline of class ") + slug : "no baseline for class " + slug;
  }
  row.gpu_uuid = m.mig_device;
  return row;
}

bool judged(Status s) { return s == Status::pass || s == Status::warn || s == Status::fail; }

// Why check `check` does not vouch for MIG device `uuid`; empty when it does: a judged metric row
// of it there when the slice baseline names metrics of it, else a status or metric of it there.
std::string slice_uncovered(const RunRecord& r, const Baseline& b, const std::string& check,
                            const std::string& uuid, const Verdict& v) {
  const bool by_metrics = std::any_of(b.metrics.begin(), b.metrics.end(), [&](const MetricExpectation& e) {
    return e.per_gpu && producing_check(r, e.name) == check;
  });
  if (by_metrics) {
    const bool any = std::any_of(v.metrics.begin(), v.metrics.end(), [&](const MetricRow& m) {
      return m.check == check && m.mig_device == uuid && judged(m.status);
    });
    return any ? "" : "no metric of it on this MIG device was judged against its class's baseline";
  }
  for (const CheckResult& c : r.checks) {
    if (c.name != check) continue;
    for (const GpuCheckStatus& s : c.per_gpu) {
      if (s.mig_device == uuid) return "";
    }
    for (const Metric& m : c.metrics) {
      if (m.mig_device == uuid) return "";
    }
  }
  return "it reported nothing for this MIG device";
}

// The slice class's `required: true, every_gpu: true` checks that run per MIG device, on MIG
// device `uuid`: one error row and reason for each that does not vouch for it.
void add_slice_coverage_rows(const RunRecord& r, const Baseline& b, const std::string& slug, int gpu,
                             const std::string& uuid, Verdict& v, std::vector<std::string>& unjudged) {
  for (const auto& [check, e] : b.checks) {
    if (!e.required || !e.every_gpu || !measured_per_mig_device(check)) continue;
    const std::string why = slice_uncovered(r, b, check, uuid, v);
    if (why.empty()) continue;
    const std::string reason =
        fmt::format("{} on MIG device {}: {}, and class {} requires it on each", check, uuid, why, slug);
    unjudged.push_back(reason);
    v.checks.push_back(CheckRow{check, gpu, Status::error, reason, 0, false, uuid});
  }
}

using SliceScope = std::tuple<std::string, int, std::string>;  // metric, GPU, MIG device

// Expectations of a slice class's baseline that one of its MIG devices did not answer, and the
// checks it requires there that do not vouch for it.
void add_missing_slice_rows(const RunRecord& r, const GpuInfo& g, UnitBaselines& units,
                            const std::set<SliceScope>& seen, Verdict& v,
                            std::vector<std::string>& unjudged) {
  for (const MigGpuInstance& gi : g.mig->gpu_instances) {
    for (const MigComputeInstance& ci : gi.compute_instances) {
      // A compute instance narrower than its GPU instance is a class of its own (unit_baseline.hpp).
      const std::string slug = judged_unit(r, g.index, ci.uuid).slug;
      const Baseline* b = units.for_class(slug);
      if (!b) continue;
      add_slice_coverage_rows(r, *b, slug, g.index, ci.uuid, v, unjudged);
      for (const MetricExpectation& e : b->metrics) {
        if (!e.per_gpu || seen.count({e.name, g.index, ci.uuid})) continue;
        MetricRow row;
        row.check = producing_check(r, e.name);
        row.metric = e.name;
        row.gpu = g.index;
        row.gpu_uuid = ci.uuid;
        row.mig_device = ci.uuid;
        row.unit = e.unit;
        row.direction = e.direction;
        row.expected = e.expected;
        row.allowed_drop_pct = e.tolerance * 100;
        row.status = e.required ? Status::error : Status::skip;
        row.reason = fmt::format("{} metric of class {} not measured on MIG device {}",
                                 e.required ? "required" : "optional", slug, ci.uuid);
        v.metrics.push_back(std::move(row));
      }
    }
  }
}

}  // namespace

bool gpu_in_mig_mode(const GpuInfo& g) { return g.mig && g.mig->current; }

std::vector<std::string> add_slice_metric_rows(const RunRecord& r, UnitBaselines& units, Verdict& v) {
  std::set<SliceScope> seen;
  for (const CheckResult& c : r.checks) {
    for (const Metric& m : c.metrics) {
      if (m.mig_device.empty() || !m.gpu) continue;
      const std::string slug = judged_unit(r, m.gpu, m.mig_device).slug;
      v.metrics.push_back(slice_row(c, m, slug, units.for_class(slug)));
      seen.emplace(m.name, *m.gpu, m.mig_device);
    }
  }
  std::vector<std::string> unjudged;
  for (const GpuInfo& g : r.gpus) {
    if (!gpu_in_mig_mode(g)) continue;
    if (mig_device_counts(*g.mig).empty()) {
      unjudged.push_back(
          fmt::format("GPU {} is in MIG mode with no MIG device: nothing was measured on it", g.index));
      continue;
    }
    add_missing_slice_rows(r, g, units, seen, v, unjudged);
  }
  for (const std::string& slug : units.classes_without_baseline()) {
    unjudged.push_back(fmt::format("no baseline for MIG class {}: its MIG devices are not judged", slug));
  }
  return unjudged;
}

}  // namespace gpuqual
