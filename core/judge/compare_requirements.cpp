#include "core/judge/compare_requirements.hpp"
#include "core/judge/compare_slices.hpp"
#include "core/record/mig_class.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/record/record_lookup.hpp"
#include "core/verdict/skip_acceptance.hpp"
#include "core/verdict/suite_requirements.hpp"

namespace gpuqual {

namespace {

// A metric row that the baseline judged: it matched an expectation and decided something.
bool judged(Status s) { return s == Status::pass || s == Status::warn || s == Status::fail; }

struct Required {
  std::string check;
  std::string by;          // "the baseline", "suite canary"
  bool every_gpu = false;  // must cover every GPU of the record
};

void require(std::vector<Required>& out, const std::string& check, const std::string& by, bool every_gpu) {
  for (auto& q : out) {
    if (q.check != check) continue;
    q.every_gpu = q.every_gpu || every_gpu;
    return;
  }
  out.push_back(Required{check, by, every_gpu});
}

// The baseline's `required: true` checks, then the suite's own entries (those the suite does not
// mark optional and the baseline does not forgive), then health, which reads every GPU's
// counters and Xids: a health check in the record must vouch for every GPU (docs/compare.md,
// "What earns a PASS").
std::vector<Required> required_checks(const RunRecord& r, const Baseline* b) {
  std::vector<Required> out;
  if (b) {
    for (const auto& [name, e] : b->checks) {
      if (e.required) require(out, name, fmt::format("the baseline ({})", b->origin), e.every_gpu);
    }
  }
  if (auto suite = suite_requirement(r.suite)) {
    for (const auto& c : suite->checks) {
      if (!(b && b->check_optional(c)))
        require(out, c, fmt::format("suite {} ({})", suite->suite, suite->origin), false);
    }
  } else if (b && out.empty()) {
    // Neither the suite (not one gpuqual can find: a user's file, a misspelt name, an edited
    // record) nor the baseline (a hand-made one without `checks:`) says what the node must run:
    // then what every built or shipped baseline asks, so that leaving health or the GEMM out of
    // such a record can never pass.
    for (const char* c : kCoreChecks) {
      if (!b->check_optional(c)) {
        require(
            out, c,
            fmt::format("gpuqual (suite \"{}\" is none it has, and the baseline requires no check)", r.suite),
            true);
      }
    }
  }
  if (find_check(r, "health")) require(out, "health", "the health rule", true);
  return out;
}

// The baseline names per-GPU metrics of `check`: then only a judged one covers a GPU.
bool judged_by_metrics(const RunRecord& r, const Baseline* b, const std::string& check) {
  if (!b) return false;
  return std::any_of(b->metrics.begin(), b->metrics.end(), [&](const MetricExpectation& e) {
    return e.per_gpu && producing_check(r, e.name) == check;
  });
}

// Why `c` does not vouch for GPU `gpu`; empty when it does.
std::string uncovered(const RunRecord& r, const Baseline* b, const CheckResult& c, int gpu,
                      const Verdict& v) {
  if (judged_by_metrics(r, b, c.name)) {
    const bool any = std::any_of(v.metrics.begin(), v.metrics.end(), [&](const MetricRow& m) {
      return m.check == c.name && m.gpu == gpu && judged(m.status);
    });
    return any ? "" : "no metric of it on this GPU was judged against the baseline";
  }
  const bool status =
      std::any_of(c.per_gpu.begin(), c.per_gpu.end(), [&](const GpuCheckStatus& g) { return g.gpu == gpu; });
  const bool metric =
      std::any_of(c.metrics.begin(), c.metrics.end(), [&](const Metric& m) { return m.gpu == gpu; });
  return status || metric ? "" : "it reported nothing for this GPU";
}

void unmet(Verdict& v, std::vector<std::string>& reasons, const std::string& check, std::optional<int> gpu,
           std::string why) {
  reasons.push_back(fmt::format("{}{}: {}", check, gpu ? fmt::format(" gpu {}", *gpu) : "", why));
  v.checks.push_back(CheckRow{check, gpu, Status::error, std::move(why), 0, false});
}

// A skip of the whole check with a not-applicable code (docs/mig.md, "What does not apply") speaks
// for the GPUs the code holds for, each judged as its own unit (core/verdict/skip_acceptance.hpp):
// `vgpu_guest` for the vGPUs, `mig_instance` for the GPUs in MIG mode. Every other GPU the check
// reported nothing for is not vouched for, and the every-GPU rule asks it of each. A skip without
// a code, or with one that does not hold for the check at all, is decided by its own row.
void check_level_skip_rows(const RunRecord& r, const CheckResult& c, const std::string& by, Verdict& v,
                           std::vector<std::string>& reasons) {
  if (c.reason_code.empty() || c.optional || not_applicable_refusal(r, c, c.reason_code, std::nullopt))
    return;
  for (const auto& g : r.gpus) {
    if (gpu_in_mig_mode(g) && measured_per_mig_device(c.name)) continue;
    const bool own =
        std::any_of(c.per_gpu.begin(), c.per_gpu.end(),
                    [&](const GpuCheckStatus& s) { return s.gpu == g.index; }) ||
        std::any_of(c.metrics.begin(), c.metrics.end(), [&](const Metric& m) { return m.gpu == g.index; });
    if (own) continue;  // the GPU's own rows decide it
    const auto refused = not_applicable_refusal(r, c, c.reason_code, g.index);
    if (!refused) continue;
    unmet(v, reasons, c.name, g.index,
          fmt::format("the check skipped as a whole ({}), which does not cover this GPU ({}), and it "
                      "reported nothing for it; {} requires it on every GPU",
                      c.reason_code, *refused, by));
  }
}

void add_required_check_rows(const RunRecord& r, const Baseline* b, Verdict& v,
                             std::vector<std::string>& reasons) {
  for (const Required& q : required_checks(r, b)) {
    const CheckResult* c = find_check(r, q.check);
    if (!c) {
      // A required metric of it already says "check did not run" on its own rows.
      const bool said = std::any_of(v.checks.begin(), v.checks.end(),
                                    [&](const CheckRow& row) { return row.check == q.check; });
      if (!said)
        unmet(v, reasons, q.check, std::nullopt, fmt::format("not in the record, but required by {}", q.by));
      continue;
    }
    if (!q.every_gpu) continue;
    if (c->status == Status::skip) {
      check_level_skip_rows(r, *c, q.by, v, reasons);
      continue;
    }
    // A check that failed or errored is decided by its own rows.
    if (c->status != Status::pass && c->status != Status::warn) continue;
    for (const auto& g : r.gpus) {
      // A GPU in MIG mode is measured in its MIG devices: their classes ask it of each
      // (core/judge/compare_slices.hpp), so the whole GPU's class does not.
      if (gpu_in_mig_mode(g) && measured_per_mig_device(q.check)) continue;
      const std::string why = uncovered(r, b, *c, g.index, v);
      if (!why.empty())
        unmet(v, reasons, q.check, g.index, fmt::format("{}, and {} requires it on every GPU", why, q.by));
    }
  }
}

}  // namespace

std::string producing_check(const RunRecord& r, const std::string& metric) {
  for (const auto& c : r.checks) {
    for (const auto& m : c.metrics) {
      if (m.name == metric) return c.name;
    }
  }
  return metric.substr(0, metric.find('.'));
}

std::vector<std::string> add_requirement_rows(const RunRecord& r, const Baseline* b, Verdict& v) {
  std::vector<std::string> reasons;
  if (!r.complete) {
    unmet(v, reasons, "run", std::nullopt,
          "the run did not complete (complete: false): it was interrupted or is still running");
  }
  if (b &&
      std::none_of(v.metrics.begin(), v.metrics.end(), [](const MetricRow& m) { return judged(m.status); })) {
    unmet(v, reasons, "metrics", std::nullopt,
          b->metrics.empty() ? "the baseline names no metric: nothing was judged against it"
                             : "no metric of the record was judged against the baseline");
  }
  add_required_check_rows(r, b, v, reasons);
  return reasons;
}

}  // namespace gpuqual
