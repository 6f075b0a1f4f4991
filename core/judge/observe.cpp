#include "core/judge/observe.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/base/plural.hpp"
#include "core/base/text_case.hpp"
#include "core/judge/observe_coverage.hpp"
#include "core/judge/observe_faults.hpp"
#include "core/judge/observe_gpus.hpp"
#include "core/judge/observe_judgement.hpp"
#include "core/judge/observe_workload.hpp"

namespace gpuqual::observe {

void Judgement::reason(Status s, const std::string& text) {
  switch (s) {
    case Status::fail:
      fails.push_back(text);
      break;
    case Status::error:
    case Status::skip:
      unjudged.push_back(text);
      break;
    case Status::warn:
      warns.push_back(text);
      break;
    case Status::pass:
      break;
  }
}

void Judgement::check(const std::string& name, Status s, const std::string& text) {
  v.checks.push_back({name, std::nullopt, s, text});
  reason(s, text);
}

namespace {

std::string window_text(const Window& w) {
  const double h = w.length() / 3600;
  return h >= 1 && h == static_cast<int>(h) ? fmt::format("{:.0f}h", h) : fmt::format("{:.0f}s", w.length());
}

std::string summary_line(const Verdict& v, const ObserveData& d, std::size_t notes) {
  std::string detail;
  if (v.outcome == Outcome::pass) {
    // A pass's reasons are notes only: say what was judged instead.
    detail = fmt::format("loaded, complete, no fault; {} within the allowed change",
                         plural(v.metrics.size(), "workload row"));
    if (notes > 0) detail += fmt::format(" ({})", plural(notes, "note"));
  } else {
    detail = v.reasons.front();
    if (v.reasons.size() > 1) detail += fmt::format(" (and {} more)", v.reasons.size() - 1);
  }
  return fmt::format("gpuqual observe: {} canary {} vs {} control nodes, {} window to {}: {}",
                     to_upper(to_string(v.outcome)), fmt::join(d.canary, ","), d.control.size(),
                     window_text(d.window), utc_text(d.window.end), detail);
}

}  // namespace

Verdict judge_observation(const ObserveData& d, const ObservePolicy& p, const ObserveOptions& o) {
  if (!o.table) throw std::logic_error("judge_observation: no severity table");
  Judgement j;
  j.v.kind = "observe";
  j.v.strict = o.strict;
  j.v.hostname = fmt::format("canary {}", fmt::join(d.canary, ","));
  j.v.hardware_class = fmt::format("control: {} nodes", d.control.size());
  j.v.run_id = fmt::format("{}/{}", utc_text(d.window.start), utc_text(d.window.end));
  j.v.baseline = o.source.empty() ? "control pool" : o.source;
  if (d.control.empty()) j.unjudged.push_back("no control node: nothing to compare the canary with");
  judge_completeness(d, p, j);
  judge_load(d, p, j);
  judge_faults(d, p, *o.table, j);
  judge_workloads(d, p, j);
  decide_outcome(j.v, j.fails, j.unjudged, j.warns, j.notes, o.strict);
  j.v.summary = summary_line(j.v, d, j.notes.size());
  return j.v;
}

}  // namespace gpuqual::observe
