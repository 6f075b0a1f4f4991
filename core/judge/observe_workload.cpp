#include "core/judge/observe_workload.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/judge/observe_gpus.hpp"
#include "core/verdict/noise_model.hpp"

namespace gpuqual::observe {

namespace {

using NodePoints = std::map<std::string, std::vector<Point>>;

std::vector<double> pool_samples(const NodePoints& by_node, const std::vector<std::string>& nodes,
                                 double from, double to, int blocks) {
  std::vector<double> out;
  for (const std::string& n : nodes) {
    auto it = by_node.find(n);
    if (it == by_node.end()) continue;
    const std::vector<double> b = block_medians(it->second, from, to, blocks);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// One part of the window judged: its metric row.
// `canary_nodes`: the pool, or one canary node (its own row, held against the same control).
MetricRow judge_part(const WorkloadPolicy& w, const ObservePolicy& p, const NodePoints& by_node,
                     const ObserveData& d, const std::vector<std::string>& canary_nodes, double from,
                     double to, const std::string& label) {
  MetricRow row;
  row.check = "observe.workload";
  row.metric = label;
  row.unit = "";
  row.direction = w.direction;
  row.allowed_drop_pct = w.allowed_change * 100;
  const std::vector<double> control = pool_samples(by_node, d.control, from, to, p.blocks);
  const std::vector<double> canary = pool_samples(by_node, canary_nodes, from, to, p.blocks);
  if (control.empty() || canary.empty()) {
    row.status = Status::error;
    row.reason = fmt::format("{}: no samples from the {} pool between {} and {}", label,
                             canary.empty() ? "canary" : "control", utc_text(from), utc_text(to));
    return row;
  }
  row.expected = median_of(control);
  row.observed = median_of(canary);
  const auto change = noise::relative_change(control, canary, p.confidence);
  if (!change) {
    row.status = Status::error;
    row.reason = fmt::format("{}: a relative change is undefined (control median 0)", label);
    return row;
  }
  row.delta_pct = change->estimate * 100;
  const noise::ChangeJudgement cj = noise::judge_change(
      *change, w.direction, noise::DropRule{w.allowed_change, w.warn_change, p.confidence});
  row.status = cj.status;
  row.reason = fmt::format(
      "{}: canary {:+.2f} % against control ({:.0f} % interval {:+.2f} %..{:+.2f} %, {} "
      "canary and {} control block medians); {}",
      label, change->estimate * 100, change->confidence * 100, change->low * 100, change->high * 100,
      canary.size(), control.size(), cj.reason);
  return row;
}

// The longest run of consecutive failed parts.
int longest_fail_run(const std::vector<MetricRow>& rows) {
  int best = 0, run = 0;
  for (const MetricRow& r : rows) {
    run = r.status == Status::fail ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

// One row per part of the window for `canary_nodes` against the control (`what`: the row's
// name), then the consecutive-parts rule over those rows. `partial` (a canary node's samples
// stop or start partway): a row that would pass or warn is unjudged instead, never a pass on the
// part that exists; a failed one still fails.
void judge_rows(const WorkloadPolicy& w, const NodePoints& by_node, const ObserveData& d,
                const ObservePolicy& p, const std::vector<std::string>& canary_nodes, const std::string& what,
                const std::string& partial, Judgement& j) {
  const double part = d.window.length() / p.split;
  std::vector<MetricRow> rows;
  for (int i = 0; i < p.split; ++i) {
    const std::string label = p.split == 1 ? what : fmt::format("{} part {}/{}", what, i + 1, p.split);
    rows.push_back(judge_part(w, p, by_node, d, canary_nodes, d.window.start + i * part,
                              d.window.start + (i + 1) * part, label));
  }
  const int run = longest_fail_run(rows);
  for (MetricRow& row : rows) {
    if (row.status == Status::fail && run < p.consecutive) {
      row.status = Status::warn;
      row.reason += fmt::format(" (not {} consecutive parts: warn)", p.consecutive);
    }
    if (!partial.empty() && (row.status == Status::pass || row.status == Status::warn)) {
      row.status = Status::error;
      row.reason += fmt::format("; not judged: {}, the rest of the window not watched", partial);
    }
    j.reason(row.status, row.reason);
    j.v.metrics.push_back(std::move(row));
  }
}

// "c1 only from T1 to T2 (48 % of the window)" when a node's samples cover less than the policy's
// min_coverage (a KPI that stops or starts partway), else "".
std::string partial_text(const NodePoints& by_node, const std::string& node, const ObserveData& d,
                         const ObservePolicy& p) {
  auto it = by_node.find(node);
  if (it == by_node.end() || it->second.empty()) return "";
  const double cov = coverage(it->second, d.window);
  if (cov >= p.min_coverage) return "";
  return fmt::format("{} only from {} to {} ({:.0f} % of the window)", node, utc_text(it->second.front().t),
                     utc_text(it->second.back().t), cov * 100);
}

// Canary nodes of the workload without samples (unjudged; a note for an optional workload none of
// whose canary nodes report it) and with samples for part of the window only (their texts: the
// rows say them). A control node's part still compares where it has samples (a note).
std::vector<std::string> check_reporting(const WorkloadPolicy& w, const QueryResult& r,
                                         const NodePoints& by_node, const ObserveData& d,
                                         const ObservePolicy& p, std::vector<std::string>& reporting,
                                         Judgement& j) {
  std::vector<std::string> partial;
  for (const std::string& n : d.canary) {
    if (!by_node.count(n)) continue;
    reporting.push_back(n);
    if (std::string t = partial_text(by_node, n, d, p); !t.empty()) partial.push_back(t);
  }
  for (const std::string& n : d.control) {
    if (std::string t = partial_text(by_node, n, d, p); !t.empty())
      j.notes.push_back(
          fmt::format("workload {}: control node {}: compared where it has samples", w.name, t));
  }
  if (reporting.empty() && w.optional) {
    j.notes.push_back(
        fmt::format("not watched: workload {} has no samples from the canary pool (optional in "
                    "the policy; query: {})",
                    w.name, r.query));
    return partial;
  }
  for (const std::string& n : d.canary) {
    if (!by_node.count(n))
      j.unjudged.push_back(
          fmt::format("workload {}: no samples from canary node {} (query: {}, node label {})", w.name, n,
                      r.query, w.node_label));
  }
  return partial;
}

// The pool's rows, then with several canary nodes each node's own (one slow node among several
// is named, not averaged away); a node without samples is named once, unjudged.
void judge_one(const WorkloadPolicy& w, const QueryResult& r, const ObserveData& d, const ObservePolicy& p,
               Judgement& j) {
  const NodePoints by_node = group_by_node(r, w.node_label);
  std::vector<std::string> reporting;
  const std::vector<std::string> partial = check_reporting(w, r, by_node, d, p, reporting, j);
  if (reporting.empty() && w.optional) return;
  const std::string pool_partial =
      partial.empty() ? "" : fmt::format("canary node {}", fmt::join(partial, "; "));
  judge_rows(w, by_node, d, p, d.canary, w.name, pool_partial, j);
  if (d.canary.size() < 2) return;  // one canary node: its row is the pool's
  for (const std::string& n : reporting) {
    const std::string t = partial_text(by_node, n, d, p);
    judge_rows(w, by_node, d, p, {n}, fmt::format("{} on {}", w.name, n), t, j);
  }
}

}  // namespace

std::vector<double> block_medians(const std::vector<Point>& points, double from, double to, int blocks) {
  std::vector<std::vector<double>> parts(static_cast<std::size_t>(std::max(blocks, 1)));
  const double width = (to - from) / static_cast<double>(parts.size());
  for (const Point& pt : points) {
    if (pt.t < from || pt.t >= to || width <= 0) continue;
    const auto k = std::min(parts.size() - 1, static_cast<std::size_t>((pt.t - from) / width));
    parts[k].push_back(pt.v);
  }
  std::vector<double> out;
  for (auto& v : parts) {
    if (!v.empty()) out.push_back(median_of(std::move(v)));
  }
  return out;
}

void judge_workloads(const ObserveData& d, const ObservePolicy& p, Judgement& j) {
  for (const WorkloadPolicy& w : p.workloads) {
    auto it = d.workloads.find(w.name);
    if (it == d.workloads.end()) {
      j.unjudged.push_back(fmt::format("workload {} was not queried", w.name));
    } else if (!it->second.error.empty()) {
      j.unjudged.push_back(
          fmt::format("Prometheus query failed: {}: {}", it->second.query, it->second.error));
    } else {
      judge_one(w, it->second, d, p, j);
    }
  }
}

}  // namespace gpuqual::observe
