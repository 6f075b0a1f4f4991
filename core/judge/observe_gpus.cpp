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

// Labels that change while one exporter serves one GPU: the workload it is attributed to (as the
// exporter writes them, or renamed exported_* by a scrape without honor_labels; docs of
// dcgm-exporter's pod attribution), the Xid's text, and the metric's name (observe asks for the
// clock-event reasons by two names).
bool attribution_label(const std::string& k) {
  static const std::set<std::string> labels{
      "__name__",         "pod",          "namespace",          "container",
      "pod_uid",          "exported_pod", "exported_namespace", "exported_container",
      "exported_pod_uid", "hpc_job",      "err_code",           "err_msg"};
  return labels.count(k) > 0;
}

std::string label_text(const Series& s) {
  std::string out;
  for (const auto& [k, v] : s.labels) out += fmt::format("{}=\"{}\",", k, v);
  return out;
}

using Spans = std::vector<std::pair<double, double>>;

struct Run {
  std::size_t source = 0;
  std::vector<Point> points;
};

bool claimed(const Spans& spans, double t) {
  return std::any_of(spans.begin(), spans.end(),
                     [t](const auto& s) { return t >= s.first && t <= s.second; });
}

// The points of `points` outside `spans`, as runs of consecutive ones, appended to `runs`.
void take_unclaimed(const std::vector<Point>& points, const Spans& spans, std::size_t source,
                    std::vector<Run>& runs) {
  Run run{source, {}};
  for (const Point& p : points) {
    if (!claimed(spans, p.t)) {
      run.points.push_back(p);
      continue;
    }
    if (!run.points.empty()) runs.push_back(std::move(run));
    run = Run{source, {}};
  }
  if (!run.points.empty()) runs.push_back(std::move(run));
}

void claim(const std::vector<Run>& runs, std::size_t from, Spans& spans) {
  for (std::size_t i = from; i < runs.size(); ++i)
    spans.emplace_back(runs[i].points.front().t, runs[i].points.back().t);
}

std::size_t point_count(const std::vector<Run>& runs) {
  std::size_t n = 0;
  for (const Run& r : runs) n += r.points.size();
  return n;
}

// One source's runs: the series that began latest is read over its span, an earlier one only
// outside the spans of later ones (ties: more points, then the smaller label text). So an old
// series' lookback tail never interleaves with its successor, nor one series with a duplicate.
std::vector<Run> source_runs(const std::vector<const Series*>& series, std::size_t source) {
  struct Candidate {
    std::vector<Point> points;  // time-sorted
    std::string labels;
  };
  std::vector<Candidate> c;
  for (const Series* s : series) {
    c.push_back({s->points, label_text(*s)});
    sort_points(c.back().points);
  }
  std::sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
    if (a.points.front().t != b.points.front().t) return a.points.front().t > b.points.front().t;
    if (a.points.size() != b.points.size()) return a.points.size() > b.points.size();
    return a.labels < b.labels;
  });
  std::vector<Run> runs;
  Spans spans;
  for (const Candidate& x : c) {
    const std::size_t before = runs.size();
    take_unclaimed(x.points, spans, source, runs);
    claim(runs, before, spans);
  }
  return runs;
}

// One GPU's sources (each its runs) merged as group_by_gpu says: the source with the most
// samples whole (ties: the smaller key), then each other one only outside the spans taken.
GpuSeries merge_sources(std::vector<std::pair<std::string, std::vector<Run>>> sources) {
  std::sort(sources.begin(), sources.end(), [](const auto& a, const auto& b) {
    const std::size_t na = point_count(a.second), nb = point_count(b.second);
    if (na != nb) return na > nb;
    return a.first < b.first;
  });
  Spans spans;
  std::vector<Run> runs;
  for (const auto& [key, source_runs] : sources) {
    const std::size_t before = runs.size();
    for (const Run& r : source_runs) take_unclaimed(r.points, spans, r.source, runs);
    claim(runs, before, spans);
  }
  std::sort(runs.begin(), runs.end(),
            [](const Run& a, const Run& b) { return a.points.front().t < b.points.front().t; });
  GpuSeries out;
  out.sources = sources.size();
  for (const Run& r : runs) {
    out.run_starts.push_back(out.points.size());
    out.run_sources.push_back(r.source);
    out.points.insert(out.points.end(), r.points.begin(), r.points.end());
  }
  return out;
}

}  // namespace

std::string source_key(const Series& s) {
  std::string out;
  for (const auto& [k, v] : s.labels) {
    if (!attribution_label(k)) out += fmt::format("{}=\"{}\",", k, v);
  }
  return out;
}

GpuPoints group_by_gpu(const QueryResult& r, const std::string& node_label,
                       const std::vector<std::string>& nodes) {
  const std::set<std::string> wanted(nodes.begin(), nodes.end());
  // GPU → source key → its series
  std::map<GpuKey, std::map<std::string, std::vector<const Series*>>> grouped;
  for (const Series& s : r.series) {
    const std::string& node = s.label(node_label);
    if (node.empty() || !wanted.count(node) || s.points.empty()) continue;
    grouped[GpuKey{node, s.label("gpu")}][source_key(s)].push_back(&s);
  }
  GpuPoints out;
  for (const auto& [key, by_source] : grouped) {
    std::vector<std::pair<std::string, std::vector<Run>>> sources;
    for (const auto& [src, series] : by_source)
      sources.emplace_back(src, source_runs(series, sources.size()));
    out[key] = merge_sources(std::move(sources));
  }
  return out;
}

std::vector<std::string> duplicated_gpus(const GpuPoints& g) {
  std::vector<std::string> out;
  for (const auto& [key, s] : g) {
    if (s.sources > 1) out.push_back(key.text());
  }
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

double counter_growth(const GpuSeries& s) {
  double growth = 0;
  for (std::size_t r = 0; r < s.run_starts.size(); ++r) {
    const std::size_t from = s.run_starts[r];
    const std::size_t to = r + 1 < s.run_starts.size() ? s.run_starts[r + 1] : s.points.size();
    growth += counter_growth(std::vector<Point>(s.points.begin() + static_cast<std::ptrdiff_t>(from),
                                                s.points.begin() + static_cast<std::ptrdiff_t>(to)));
    // From the previous run of the same source (its series' labels changed): the counter goes on;
    // a drop there is a duplicate's lag, not a reset.
    if (r > 0 && s.run_sources[r] == s.run_sources[r - 1])
      growth += std::max(0.0, s.points[from].v - s.points[from - 1].v);
  }
  return growth;
}

double watched_span(const GpuSeries& s, const Window& w) { return coverage(s.points, w) * w.length(); }

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
