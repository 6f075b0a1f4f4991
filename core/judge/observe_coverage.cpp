#include "core/judge/observe_coverage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/base/plural.hpp"
#include "core/judge/observe_gpus.hpp"

namespace gpuqual::observe {

namespace {

const QueryResult* field_result(const ObserveData& d, const char* name) {
  auto it = d.fields.find(name);
  return it == d.fields.end() ? nullptr : &it->second;
}

// Unjudged once, naming the query, when a field's query failed or never ran.
const QueryResult* readable(const ObserveData& d, const char* name, Judgement& j) {
  const QueryResult* r = field_result(d, name);
  if (!r) {
    j.unjudged.push_back(fmt::format("{} was not queried", name));
    return nullptr;
  }
  if (!r->error.empty()) {
    j.unjudged.push_back(fmt::format("Prometheus query failed: {}: {}", r->query, r->error));
    return nullptr;
  }
  return r;
}

std::map<std::string, int> gpus_per_node(const GpuPoints& g) {
  std::map<std::string, int> n;
  for (const auto& [key, points] : g) ++n[key.node];
  return n;
}

// The sample times of timestamp(DCGM_FI_DEV_GPU_UTIL): each step's value is the time of the
// latest sample Prometheus holds then, so repeated values collapse into one sample.
std::vector<Point> sample_times(const std::vector<Point>& ages) {
  std::set<double> times;
  for (const Point& p : ages) times.insert(p.v);
  std::vector<Point> out;
  for (double t : times) out.push_back({t, t});
  return out;
}

std::string gap_text(const std::pair<double, double>& g) {
  return fmt::format("{} to {} ({:.0f} s)", utc_text(g.first), utc_text(g.second), g.second - g.first);
}

void judge_gpu_gaps(const GpuKey& key, const std::vector<Point>& ages, const ObserveData& d,
                    const ObservePolicy& p, Judgement& j, Status& node_status) {
  const std::vector<Point> samples = sample_times(ages);
  const auto found = gaps(samples, d.window, p.max_gap_s);
  const double cov = coverage(samples, d.window);
  if (cov < p.min_coverage) {
    j.unjudged.push_back(fmt::format("{}: samples cover {:.0f} % of the window (policy: {:.0f} %){}",
                                     key.text(), cov * 100, p.min_coverage * 100,
                                     found.empty() ? "" : ", gap " + gap_text(found.front())));
    node_status = Status::error;
    return;
  }
  if (!found.empty()) {
    j.warns.push_back(fmt::format("{}: {} without samples longer than {:.0f} s: {}", key.text(),
                                  plural(found.size(), "gap"), p.max_gap_s, gap_text(found.front())));
    if (node_status == Status::pass) node_status = Status::warn;
  }
}

}  // namespace

int expected_gpus(const ObserveData& d, const ObservePolicy& p, const std::string& node) {
  if (auto it = d.expected_gpus.find(node); it != d.expected_gpus.end()) return it->second;
  const QueryResult* r = field_result(d, field::kUtil);
  if (!r) return 0;
  std::vector<double> counts;
  for (const auto& [n, c] : gpus_per_node(group_by_gpu(*r, p.node_label, d.control))) counts.push_back(c);
  return counts.empty() ? 0 : static_cast<int>(std::lround(median_of(counts)));
}

void judge_completeness(const ObserveData& d, const ObservePolicy& p, Judgement& j) {
  const QueryResult* util = readable(d, field::kUtil, j);
  const QueryResult* ages = readable(d, field::kUtilAge, j);
  if (!util || !ages) return;
  const auto seen = gpus_per_node(group_by_gpu(*util, p.node_label, d.canary));
  const GpuPoints age_points = group_by_gpu(*ages, p.node_label, d.canary);
  for (const std::string& node : d.canary) {
    const int expected = expected_gpus(d, p, node);
    const int have = seen.count(node) ? seen.at(node) : 0;
    const std::string name = "completeness " + node;
    if (have == 0) {
      j.check(
          name, Status::error,
          expected > 0
              ? fmt::format("monitoring lost: {} reports no {} series while {} GPUs are expected "
                            "(dcgm-exporter not running or not scraped, or its {} label changed)",
                            node, field::kUtil, expected, p.node_label)
              : fmt::format("{}: no {} series, and the control pool has none either", node, field::kUtil));
      continue;
    }
    Status status = Status::pass;
    if (have < expected) {
      j.unjudged.push_back(fmt::format("{}: {} of {} GPUs report {}", node, have, expected, field::kUtil));
      status = Status::error;
    }
    for (const auto& [key, series] : age_points) {
      if (key.node == node) judge_gpu_gaps(key, series.points, d, p, j, status);
    }
    j.v.checks.push_back({name, std::nullopt, status,
                          fmt::format("{}: {} of {} GPUs report", node, have, std::max(have, expected))});
  }
}

void judge_load(const ObserveData& d, const ObservePolicy& p, Judgement& j) {
  const auto it = d.fields.find(field::kUtil);
  if (it == d.fields.end() || !it->second.error.empty()) return;  // named by judge_completeness
  const GpuPoints g = group_by_gpu(it->second, p.node_label, d.canary);
  for (const std::string& node : d.canary) {
    std::vector<double> medians;
    for (const auto& [key, series] : g) {
      if (key.node != node || series.points.empty()) continue;
      std::vector<double> v;
      for (const Point& pt : series.points) v.push_back(pt.v);
      medians.push_back(median_of(v));
    }
    if (medians.empty()) continue;  // no series: completeness says so
    const auto busy =
        std::count_if(medians.begin(), medians.end(), [&](double m) { return m >= p.min_utilization_pct; });
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    const std::string text = fmt::format(
        "{}: {} of {} GPUs busy (median utilization {:.0f}-{:.0f} %; policy: {:.0f} % on {:.0f} % of "
        "the GPUs)",
        node, busy, medians.size(), *lo, *hi, p.min_utilization_pct, p.min_busy_fraction * 100);
    const bool enough =
        static_cast<double>(busy) >= p.min_busy_fraction * static_cast<double>(medians.size());
    j.check("load " + node, enough ? Status::pass : Status::skip,
            enough ? text : "idle canary, nothing proven: " + text);
  }
}

}  // namespace gpuqual::observe
