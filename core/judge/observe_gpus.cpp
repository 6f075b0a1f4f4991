#include "core/judge/observe_gpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "core/base/utc_time.hpp"

namespace gpuqual::observe {

const std::string& Series::label(const std::string& key) const {
  static const std::string empty;
  auto it = labels.find(key);
  return it == labels.end() ? empty : it->second;
}

std::string GpuKey::text() const { return gpu.empty() ? node : fmt::format("{} GPU {}", node, gpu); }

namespace {
void sort_points(std::vector<Point>& p) {
  std::stable_sort(p.begin(), p.end(), [](const Point& a, const Point& b) { return a.t < b.t; });
}
}  // namespace

GpuPoints group_by_gpu(const QueryResult& r, const std::string& node_label,
                       const std::vector<std::string>& nodes) {
  const std::set<std::string> wanted(nodes.begin(), nodes.end());
  GpuPoints out;
  for (const Series& s : r.series) {
    const std::string& node = s.label(node_label);
    if (node.empty() || !wanted.count(node)) continue;
    std::vector<Point>& p = out[GpuKey{node, s.label("gpu")}];
    p.insert(p.end(), s.points.begin(), s.points.end());
  }
  for (auto& [key, p] : out) sort_points(p);
  return out;
}

std::map<std::string, std::vector<Point>> group_by_node(const QueryResult& r, const std::string& node_label) {
  std::map<std::string, std::vector<Point>> out;
  for (const Series& s : r.series) {
    const std::string& node = s.label(node_label);
    if (node.empty()) continue;
    std::vector<Point>& p = out[node];
    p.insert(p.end(), s.points.begin(), s.points.end());
  }
  for (auto& [node, p] : out) sort_points(p);
  return out;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double counter_growth(const std::vector<Point>& points) {
  double growth = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const double d = points[i].v - points[i - 1].v;
    growth += d >= 0 ? d : points[i].v;  // a reset: the counter restarted from 0
  }
  return growth;
}

std::vector<std::pair<double, double>> gaps(const std::vector<Point>& points, const Window& w,
                                            double max_gap_s) {
  std::vector<std::pair<double, double>> out;
  double last = w.start;
  for (const Point& p : points) {
    if (p.t - last > max_gap_s) out.emplace_back(last, p.t);
    last = std::max(last, p.t);
  }
  if (w.end - last > max_gap_s) out.emplace_back(last, w.end);
  return out;
}

double coverage(const std::vector<Point>& points, const Window& w) {
  if (w.length() <= 0) return 0;
  double covered = 0;
  double until = w.start;
  for (const Point& p : points) {
    const double from = std::max(until, p.t - w.step);
    const double to = std::min(w.end, p.t + w.step);
    if (to > from) covered += to - from;
    until = std::max(until, to);
  }
  return std::min(1.0, covered / w.length());
}

std::string utc_text(double t) {
  using namespace std::chrono;
  return utc_rfc3339(system_clock::time_point(duration_cast<system_clock::duration>(duration<double>(t))));
}

}  // namespace gpuqual::observe
