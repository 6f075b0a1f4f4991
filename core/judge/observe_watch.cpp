#include "core/judge/observe_watch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <vector>

namespace gpuqual::observe {

namespace {

// The share of the window within a step of one of the GPU's samples. DCGM_FI_DEV_XID_ERRORS is blank until a
// GPU's first Xid on exporters that drop blank values, so an Xid series that starts partway with a non-zero
// value is whole from its start.
double field_coverage(const char* field, const GpuSeries& s, const Window& w) {
  if (s.points.empty()) return 0;
  const double cov = coverage(s.points, w);
  if (field == std::string(field::kXid) && s.points.front().v != 0 && w.length() > 0) {
    const double blank = std::max(0.0, s.points.front().t - w.step - w.start);
    return std::min(1.0, cov + blank / w.length());
  }
  return cov;
}

void say(const char* field, const ObservePolicy& p, const std::string& text, Judgement& j) {
  if (p.optional_series.count(field))
    j.notes.push_back(text + " (optional in the policy)");
  else
    j.unjudged.push_back(text);
}

}  // namespace

std::set<GpuKey> reporting_canary_gpus(const ObserveData& d, const ObservePolicy& p) {
  std::set<GpuKey> out;
  auto it = d.fields.find(field::kUtil);
  if (it == d.fields.end() || !it->second.error.empty()) return out;
  for (const auto& [key, s] : group_by_gpu(it->second, p.node_label, d.canary)) {
    if (coverage(s.points, d.window) >= p.min_coverage) out.insert(key);
  }
  return out;
}

std::string field_text(const char* field) {
  if (field == std::string(field::kClocksEventReasons))
    return fmt::format("{} (or {})", field::kClocksEventReasons, field::kClocksEventReasonsOld);
  return field;
}

void judge_watched(const char* field, const GpuPoints& canary, const GpuPoints& control,
                   const std::set<GpuKey>& reporting, const ObserveData& d, const ObservePolicy& p,
                   Judgement& j) {
  if (canary.empty() && control.empty()) {
    if (p.optional_series.count(field)) {
      j.notes.push_back(fmt::format("not watched: {} has no series in the window (optional in the policy)",
                                    field_text(field)));
    } else {
      j.unjudged.push_back(fmt::format(
          "not watched: {} has no series in the window (enable it in dcgm-exporter's CSV, or list it "
          "under optional_series in the policy if the exporter does not serve it)",
          field_text(field)));
    }
    return;
  }
  std::map<std::string, std::vector<std::string>> missing;  // node → its GPUs without the field
  for (const GpuKey& key : reporting) {
    auto it = canary.find(key);
    if (it == canary.end()) {
      missing[key.node].push_back(key.gpu);
      continue;
    }
    const GpuSeries& s = it->second;
    const double cov = field_coverage(field, s, d.window);
    if (cov >= p.min_coverage) continue;
    say(field, p,
        fmt::format("not watched: {}: {} only from {} to {} ({:.0f} % of the window) while the GPU "
                    "reports utilization: not judged on the rest",
                    key.text(), field_text(field), utc_text(s.points.front().t), utc_text(s.points.back().t),
                    cov * 100),
        j);
  }
  for (const auto& [node, gpus] : missing) {
    say(field, p,
        fmt::format("not watched: {}: no {} series from GPU {} while {} utilization", node, field_text(field),
                    fmt::join(gpus, ", "), gpus.size() == 1 ? "it reports" : "they report"),
        j);
  }
}

}  // namespace gpuqual::observe
