#include "core/judge/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include "core/base/plural.hpp"
#include "core/base/stats.hpp"
#include "core/base/utc_time.hpp"
#include "core/baseline/unit_baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/gate_racks.hpp"
#include "core/judge/gate_summary.hpp"
#include "core/record/hardware_class.hpp"
#include "core/verdict/noise_model.hpp"
#include "core/verdict/record_history.hpp"
#include "core/verdict/verdict_action.hpp"

namespace gpuqual {

namespace {

constexpr std::size_t kMinPoolNodes = 3;  // below this a pool median says nothing a node did not
constexpr std::size_t kNamesInReason = 5;

Status status_of(Outcome o) {
  switch (o) {
    case Outcome::pass:
      return Status::pass;
    case Outcome::warn:
      return Status::warn;
    case Outcome::fail:
      return Status::fail;
    case Outcome::inconclusive:
      return Status::error;
  }
  return Status::error;
}

int outcome_rank(Outcome o) {
  switch (o) {
    case Outcome::fail:
      return 0;
    case Outcome::inconclusive:
      return 1;
    case Outcome::warn:
      return 2;
    case Outcome::pass:
      return 3;
  }
  return 1;
}

// How bad a judged row is, relative to what it may drop: > 1 is beyond the allowed drop.
double badness(const MetricRow& m) {
  if (!m.delta_pct) return -std::numeric_limits<double>::infinity();
  const double drop = m.direction == Direction::higher ? -*m.delta_pct : *m.delta_pct;
  return m.allowed_drop_pct > 0 ? drop / m.allowed_drop_pct : drop;
}

std::string names(const std::vector<std::string>& list) {
  std::vector<std::string> shown(
      list.begin(), list.begin() + static_cast<std::ptrdiff_t>(std::min(list.size(), kNamesInReason)));
  std::string out = fmt::format("{}", fmt::join(shown, ", "));
  if (list.size() > shown.size()) out += fmt::format(" and {} more", list.size() - shown.size());
  return out;
}

// A passing node that must not pass clean (flaky): warn, with why first.
void warn_verdict(Verdict& v, const std::string& why) {
  if (v.outcome != Outcome::pass) {
    v.reasons.push_back(why);
    return;
  }
  v.outcome = Outcome::warn;
  v.exit_code = exit_code_for(v.outcome, v.strict);
  v.reasons.insert(v.reasons.begin(), why);
  const std::string head = "gpuqual: PASS";
  if (v.summary.rfind(head, 0) == 0) v.summary = "gpuqual: WARN" + v.summary.substr(head.size());
  v.summary += "; " + why;
}

template <class Row>
void keep_not_passed(std::vector<Row>& rows, std::size_t keep) {
  std::vector<Row> kept;
  for (auto& r : rows) {
    if (r.status != Status::pass && r.status != Status::skip && kept.size() < keep)
      kept.push_back(std::move(r));
  }
  rows = std::move(kept);
}

}  // namespace

void trim_node_verdict(Verdict& v, std::size_t keep_rows, std::size_t worst, std::size_t keep_reasons) {
  // The worst judged rows first, then every other row that did not pass.
  std::vector<const MetricRow*> judged;
  for (const auto& m : v.metrics) {
    if (m.delta_pct && m.status != Status::skip && m.status != Status::error) judged.push_back(&m);
  }
  const std::size_t top = std::min(worst, judged.size());
  std::partial_sort(judged.begin(), judged.begin() + static_cast<std::ptrdiff_t>(top), judged.end(),
                    [](const MetricRow* a, const MetricRow* b) { return badness(*a) > badness(*b); });
  // Room for exactly the rows kept: the pool holds one such vector per node, and growth by
  // doubling left a fourth of it spare (docs/performance.md, "Gate over 100,000 nodes").
  std::size_t not_passed = 0;
  for (const auto& m : v.metrics) not_passed += m.status != Status::pass && m.status != Status::skip;
  std::vector<MetricRow> kept;
  kept.reserve(top + std::min(keep_rows, not_passed));
  std::set<const MetricRow*> taken;
  for (std::size_t i = 0; i < top; ++i) {
    kept.push_back(*judged[i]);
    taken.insert(judged[i]);
  }
  std::size_t others = 0;
  for (const auto& m : v.metrics) {
    if (m.status == Status::pass || m.status == Status::skip || taken.count(&m) || others >= keep_rows)
      continue;
    kept.push_back(m);
    ++others;
  }
  v.metrics = std::move(kept);
  keep_not_passed(v.findings, keep_rows);
  keep_not_passed(v.checks, keep_rows);
  if (v.reasons.size() > keep_reasons) {
    const std::size_t dropped = v.reasons.size() - keep_reasons;
    v.reasons.resize(keep_reasons);
    v.reasons.push_back(fmt::format("... and {} more", dropped));
  }
}

NodeSummary unreadable_node(std::string path, const std::string& problem, std::size_t order) {
  NodeSummary s;
  s.node = path;
  s.path = std::move(path);
  s.order = order;
  s.unreadable = true;
  Verdict& v = s.verdict;
  v.hostname = s.node;
  v.baseline = "";
  v.checks.push_back(CheckRow{kUnreadableRecordCheck, std::nullopt, Status::error, problem, 0});
  decide_outcome(v, {}, {"unreadable record: " + problem}, {}, {}, false);
  v.summary = "gpuqual: ERROR — unreadable record: " + problem;
  return s;
}

NodeSummary summarize_node(const RunRecord& r, const Baseline* b, const GateOptions& options,
                           std::string path, std::size_t order) {
  NodeSummary s;
  s.node = !r.node.k8s_node_name.empty() ? r.node.k8s_node_name : r.node.hostname;
  if (s.node.empty()) s.node = path;  // nothing names the node: it can only be itself
  s.path = std::move(path);
  s.started_at = r.started_at;
  s.started_ms = parse_rfc3339_ms(r.started_at);
  s.ended_ms = parse_rfc3339_ms(r.ended_at);
  s.order = order;
  s.boot_id = r.node.boot_id;
  s.uptime_s = r.node.uptime_s;
  s.complete = r.complete;
  s.gpu_keys.reserve(r.gpus.size());
  for (const auto& g : r.gpus) {
    // A GPU the inventory could not name ("unread:<bus id>") is no identity across records.
    if (g.uuid.empty() || is_unread_gpu_uuid(g.uuid)) continue;
    s.gpu_keys.push_back(std::hash<std::string>{}(gpu_uuid_key(g.uuid)));
  }
  s.hardware_class = r.hardware_class.slug;
  if (!options.rack_label.empty()) s.rack = rack_of(r.node.k8s_labels, options.rack_label);
  if (auto note = class_override_note(r)) s.class_note = s.node + ": " + *note;
  CompareOptions co;
  co.strict = options.strict;
  co.expect_gpus = options.expect_gpus;
  co.target = options.target;
  co.with_stack = false;
  co.unit_baselines = options.unit_baselines;
  s.verdict = compare_record(r, b, co);
  // The node's verdict is named as the pool names the node: in a Kubernetes Job the hostname is
  // the pod's, shared by every pod of an Indexed Job; `gpuqual plan --verdicts` matches by node name.
  s.verdict.hostname = s.node;
  // Too old, or stale against the node's Node object: the record does not qualify it now.
  if (options.freshness.active())
    withhold_qualification(s.verdict, freshness_problems(r, s.node, options.freshness));
  s.components = record_components(r);
  trim_node_verdict(s.verdict);
  if (!b) return s;
  s.pool_values.assign(b->metrics.size(), std::numeric_limits<double>::quiet_NaN());
  std::vector<std::vector<double>> per_gpu(b->metrics.size());
  for (const auto& c : r.checks) {
    for (const auto& m : c.metrics) {
      // A MIG slice's figure is judged by its own class (core/baseline/unit_baseline.hpp): mixed
      // into the whole GPUs' pool median it would fail every healthy MIG pool.
      if (!judged_by_record_class(r, m.gpu, m.mig_device)) continue;
      for (std::size_t k = 0; k < b->metrics.size(); ++k) {
        const MetricExpectation& e = b->metrics[k];
        if (e.name != m.name || e.unit != m.unit || e.per_gpu != m.gpu.has_value()) continue;
        if (e.per_gpu) {
          per_gpu[k].push_back(m.median);
        } else {
          s.pool_values[k] = m.median;
        }
      }
    }
  }
  for (std::size_t k = 0; k < per_gpu.size(); ++k) {
    if (!per_gpu[k].empty()) s.pool_values[k] = stats::median(per_gpu[k]);
  }
  return s;
}

void GatePool::add(NodeSummary node, const Baseline* baseline) {
  if (!class_baselines_.count(node.hardware_class)) class_baselines_[node.hardware_class] = baseline;
  auto it = by_identity_.find(node.node);
  if (it == by_identity_.end()) {
    by_identity_[node.node] = nodes_.size();
    nodes_.push_back(std::move(node));
    return;
  }
  // The node's history: which record counts is decided once all are in (resolve_history).
  more_[it->second].push_back(std::move(node));
}

void GatePool::resolve_history(std::size_t index, std::vector<NodeSummary>& more) {
  std::vector<NodeSummary*> all{&nodes_[index]};
  for (auto& m : more) all.push_back(&m);
  std::vector<RunPoint> runs;
  runs.reserve(all.size());
  for (const NodeSummary* s : all)
    runs.push_back(
        RunPoint{s->boot_id, s->uptime_s, s->started_ms, s->order, s->verdict.outcome, s->ended_ms});
  std::string current;
  if (options_.freshness.nodes) {
    auto n = options_.freshness.nodes->find(nodes_[index].node);
    if (n != options_.freshness.nodes->end()) current = n->second.boot_id;
  }
  const RunHistory h = judge_history(runs, current, options_.strict);
  NodeSummary& counted = *all[h.counted];
  const std::string name = counted.node;
  auto started = [](const NodeSummary* s) {
    return s->started_at.empty() ? std::string("?") : s->started_at;
  };
  if (all.size() > 1) {
    ignored_records_ += all.size() - 1;
    std::vector<std::string> others;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (i != h.counted) others.push_back(fmt::format("{} (started {})", all[i]->path, started(all[i])));
    }
    if (h.order_known) {
      duplicates_.push_back(
          fmt::format("node {}: more than one record, the newest counts: {} (started {}) over {}", name,
                      counted.path, started(&counted), names(others)));
    } else {
      std::vector<std::string> newest;
      for (std::size_t i : h.newest)
        newest.push_back(fmt::format("{} ({})", all[i]->path, to_string(all[i]->verdict.outcome)));
      const std::string why = fmt::format(
          "node {}: which of its records is the newest cannot be told ({} boots; a boot id does not order "
          "boots, and a reboot can reset the clock that started_at comes from): the worst of {} counts",
          name, h.boots, fmt::join(newest, ", "));
      duplicates_.push_back(why + fmt::format(": {} over {}", counted.path, names(others)));
      counted.verdict.reasons.push_back(why);
    }
  }
  const bool passing = counted.verdict.outcome == Outcome::pass || counted.verdict.outcome == Outcome::warn;
  if (options_.consecutive > 1 && passing &&
      h.passes_in_a_row < static_cast<std::size_t>(options_.consecutive)) {
    withhold_qualification(
        counted.verdict,
        {fmt::format("{} in a row since its last non-passing run{}; --consecutive {} needs {}",
                     plural(h.passes_in_a_row, "passing run"),
                     h.order_known ? "" : " (of runs whose order the records prove)", options_.consecutive,
                     options_.consecutive)});
  }
  if (h.flaky) {
    const std::string why =
        fmt::format("flaky: its runs alternate between pass and fail ({})", outcome_pattern(h.pattern));
    flaky_.push_back(name);
    warn_verdict(counted.verdict, why);
  }
  if (h.counted != 0) nodes_[index] = std::move(counted);
  more.clear();
}

void GatePool::resolve_histories() {
  // Each node's records, in order: the one that counts, and its history.
  const bool history = options_.consecutive > 1;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    auto extra = more_.find(i);
    if (nodes_[i].unreadable || (!history && extra == more_.end())) continue;
    std::vector<NodeSummary> none;
    resolve_history(i, extra == more_.end() ? none : extra->second);
  }
  more_.clear();
}

std::size_t GatePool::count_machines(std::vector<std::string>& notes,
                                     std::vector<std::string>& shared) const {
  // Union-find over the nodes: two that hold a GPU UUID in common are one machine.
  std::vector<std::size_t> parent(nodes_.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::unordered_map<std::uint64_t, std::size_t> owner;
  owner.reserve(nodes_.size() * 8);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (std::uint64_t k : nodes_[i].gpu_keys) {
      auto [it, fresh] = owner.emplace(k, i);
      if (!fresh) parent[root(i)] = root(it->second);
    }
  }
  std::vector<std::size_t> size(nodes_.size(), 0);
  std::size_t machines = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) machines += size[root(i)]++ == 0;
  std::map<std::size_t, std::vector<std::string>> groups;  // only the machines with several names
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (size[root(i)] > 1) groups[root(i)].push_back(nodes_[i].node);
  }
  for (auto& [r, members] : groups) {
    std::sort(members.begin(), members.end());
    const std::string last = members.back();
    members.pop_back();
    const std::string line =
        fmt::format("node {} and {} are one machine (same GPU UUIDs)", names(members), last);
    notes.push_back(line + ": counted once toward --expect-nodes");
    shared.push_back(line);
  }
  return machines;
}

namespace {

// The pool's nodes by what their verdicts say, for its counts, reasons and stack.
struct PoolTally {
  std::vector<std::string> failed, inconclusive, warned, passed, unreadable;
  std::set<std::string> classes, drivers, cuda;
  std::map<std::string, std::vector<std::string>> nodes_by_driver, nodes_by_cuda;
};

// What decides the pool's outcome (decide_outcome), each list in the order the report shows it.
struct PoolReasons {
  std::vector<std::string> fails, unjudged, warns, notes;
};

// Not-passing nodes first, then by name: the order of the pool's rows.
void sort_by_outcome(std::vector<NodeSummary>& nodes) {
  std::sort(nodes.begin(), nodes.end(), [](const NodeSummary& a, const NodeSummary& b) {
    const int ra = outcome_rank(a.verdict.outcome), rb = outcome_rank(b.verdict.outcome);
    return ra != rb ? ra < rb : a.node < b.node;
  });
}

// One check row per node, and the nodes counted by outcome, class and versions.
PoolTally tally_nodes(const std::vector<NodeSummary>& nodes, Verdict& v) {
  PoolTally t;
  for (const auto& n : nodes) {
    if (n.unreadable) {
      // No class, driver or metrics: it names only its file and why it could not be read.
      t.unreadable.push_back(n.node);
      v.checks.push_back(CheckRow{n.node, std::nullopt, Status::error, n.verdict.checks.front().reason, 0});
      continue;
    }
    t.nodes_by_driver[n.verdict.driver_version].push_back(n.node);
    t.nodes_by_cuda[n.verdict.cuda_driver_version].push_back(n.node);
    switch (n.verdict.outcome) {
      case Outcome::fail:
        t.failed.push_back(n.node);
        break;
      case Outcome::inconclusive:
        t.inconclusive.push_back(n.node);
        break;
      case Outcome::warn:
        t.warned.push_back(n.node);
        break;
      case Outcome::pass:
        t.passed.push_back(n.node);
        break;
    }
    t.classes.insert(n.hardware_class);
    t.drivers.insert(n.verdict.driver_version);
    t.cuda.insert(n.verdict.cuda_driver_version);
    v.checks.push_back(
        CheckRow{n.node, std::nullopt, status_of(n.verdict.outcome), n.verdict.summary, 0, false});
  }
  return t;
}

// The pool's class and versions: the one value, else all of them ("mixed" for versions).
void state_pool_stack(const PoolTally& t, Verdict& v) {
  auto joined = [](const std::set<std::string>& s) {
    return s.size() == 1 ? *s.begin() : fmt::format("{}", fmt::join(s, ","));
  };
  v.hardware_class = joined(t.classes);
  v.driver_version = t.drivers.size() > 1 ? "mixed" : joined(t.drivers);
  v.cuda_driver_version = t.cuda.size() > 1 ? "mixed" : joined(t.cuda);
}

// The pool median of metric `e` over `values` (one per node of class `cls`) against the
// baseline, with the pool's allowed drop (min of the metric's tolerance and --pool-allowed-drop).
MetricRow pool_metric_row(const MetricExpectation& e, const std::string& cls,
                          const std::vector<double>& values, const GateOptions& options) {
  MetricRow row;
  row.check = "pool";
  row.metric = e.name;
  row.unit = e.unit;
  row.direction = e.direction;
  row.expected = e.expected;
  row.observed = stats::median(values);
  noise::DropRule rule{std::min(e.tolerance, options.pool_allowed_drop), std::nullopt, options.confidence};
  row.allowed_drop_pct = rule.allowed_drop * 100;
  const std::string who = fmt::format("pool of {} {} node{}", values.size(), cls, plural_s(values.size()));
  auto change = noise::median_vs_expected(values, e.expected, options.confidence);
  if (values.size() < kMinPoolNodes) {
    row.status = Status::skip;
    row.reason = fmt::format("{}: too few for a pool judgement ({} needed)", who, kMinPoolNodes);
  } else if (!change) {
    row.status = Status::skip;
    row.reason = fmt::format("{}: the baseline's expected value {:g} is not positive", who, e.expected);
  } else {
    const noise::ChangeJudgement j = noise::judge_change(*change, e.direction, rule);
    row.delta_pct = change->estimate * 100;
    row.status = j.status;
    row.reason = fmt::format("{}: median {}", who, j.reason);
  }
  return row;
}

// The pool medians of class `cls` (its `members`) against the class baseline `b`.
void judge_class_medians(const std::string& cls, const Baseline* b,
                         const std::vector<const NodeSummary*>& members, const GateOptions& options,
                         Verdict& v, PoolReasons& r) {
  if (b->kind == BaselineKind::floor) {
    // A floor is a fraction of the datasheet peak, not a healthy node's value: a pool median
    // "below expected" means nothing. Each node was judged against the floor on its own.
    r.notes.push_back(fmt::format("class {}: {}; no pool judgement against floors", cls, kFloorNote));
    return;
  }
  for (std::size_t k = 0; k < b->metrics.size(); ++k) {
    const MetricExpectation& e = b->metrics[k];
    std::vector<double> values;
    for (const NodeSummary* n : members) {
      if (k < n->pool_values.size() && !std::isnan(n->pool_values[k])) values.push_back(n->pool_values[k]);
    }
    if (values.empty()) continue;  // nobody measured it: the nodes already say so
    MetricRow row = pool_metric_row(e, cls, values, options);
    const std::string what = fmt::format("pool median of {} ({}): {}", e.name, cls, row.reason);
    if (row.status == Status::fail) r.fails.push_back(what);
    if (row.status == Status::warn) r.warns.push_back(what);
    v.checks.push_back(
        CheckRow{fmt::format("pool {} {}", cls, e.name), std::nullopt, row.status, row.reason, 0, false});
    v.metrics.push_back(std::move(row));
  }
}

// The pool, class by class, against each class's baseline; names the baselines used in v.
void judge_pool_medians(const std::vector<NodeSummary>& nodes, const std::set<std::string>& classes,
                        const std::map<std::string, const Baseline*>& class_baselines,
                        const GateOptions& options, Verdict& v, PoolReasons& r) {
  std::set<std::string> baselines;
  for (const auto& cls : classes) {
    auto found = class_baselines.find(cls);
    const Baseline* b = found == class_baselines.end() ? nullptr : found->second;
    std::vector<const NodeSummary*> members;
    for (const auto& n : nodes) {
      if (n.hardware_class == cls) members.push_back(&n);
    }
    if (!b) {
      r.unjudged.push_back(fmt::format("no baseline for class {} ({})", cls, plural(members.size(), "node")));
      continue;
    }
    baselines.insert(b->origin);
    judge_class_medians(cls, b, members, options, v, r);
  }
  v.baseline = fmt::format("{}", fmt::join(baselines, ","));
}

// --max-failed as a number of the pool's `total` nodes, and as the reasons write it.
struct FailureBudget {
  std::size_t nodes = 0;
  std::string text;
};

FailureBudget failure_budget(const GateOptions& options, std::size_t total) {
  FailureBudget b;
  b.nodes = options.max_failed_pct ? static_cast<std::size_t>(std::floor(
                                         *options.max_failed_pct / 100.0 * static_cast<double>(total) + 1e-9))
                                   : static_cast<std::size_t>(std::max(0, options.max_failed));
  b.text = options.max_failed_pct ? fmt::format("--max-failed {:g}% = {}", *options.max_failed_pct, b.nodes)
                                  : fmt::format("--max-failed {}", b.nodes);
  return b;
}

// The nodes that did not qualify against the budget: beyond it the pool fails, within it warns.
void judge_failure_budget(const PoolTally& t, std::size_t total, const FailureBudget& budget,
                          PoolReasons& r) {
  // An unreadable record is a node that did not qualify: it uses up the failure budget too.
  const std::size_t not_qualified = t.failed.size() + t.unreadable.size();
  if (!t.unreadable.empty() && not_qualified > budget.nodes) {
    std::vector<std::string> both = t.failed;
    both.insert(both.end(), t.unreadable.begin(), t.unreadable.end());
    r.fails.insert(
        r.fails.begin(),
        fmt::format("{} of {} nodes did not qualify ({} failed, {} unreadable), more than {} allows: {}",
                    not_qualified, total, t.failed.size(), t.unreadable.size(), budget.text, names(both)));
  } else if (t.failed.size() > budget.nodes) {
    r.fails.insert(r.fails.begin(), fmt::format("{} of {} nodes failed, more than {} allows: {}",
                                                t.failed.size(), total, budget.text, names(t.failed)));
  } else if (!t.failed.empty()) {
    r.warns.insert(r.warns.begin(), fmt::format("{} of {} nodes failed, within {}: {}", t.failed.size(),
                                                total, budget.text, names(t.failed)));
  }
}

// The pool that is short of nodes, and the nodes it could not judge or read.
void add_unjudged_nodes(const PoolTally& t, std::size_t total, std::size_t machines,
                        const std::vector<std::string>& shared_machines, const GateOptions& options,
                        PoolReasons& r) {
  if (total == 0) r.unjudged.insert(r.unjudged.begin(), "no run records");
  if (options.expect_nodes && machines < static_cast<std::size_t>(*options.expect_nodes)) {
    // One machine under two names (pods named for the node, a renamed node) is one node.
    const std::string names_note =
        machines == total ? "" : fmt::format(" ({} names; {})", total, fmt::join(shared_machines, "; "));
    r.unjudged.insert(r.unjudged.begin(),
                      fmt::format("{}{}, --expect-nodes {}", plural(machines, "distinct node"), names_note,
                                  *options.expect_nodes));
  }
  if (!t.inconclusive.empty()) {
    r.unjudged.push_back(fmt::format("{} could not be judged: {}", plural(t.inconclusive.size(), "node"),
                                     names(t.inconclusive)));
  }
  if (!t.unreadable.empty()) {
    r.unjudged.push_back(
        fmt::format("{} could not be read: {}", plural(t.unreadable.size(), "record"), names(t.unreadable)));
  }
}

// One pool, one stack: a node still on the old driver has not qualified the new one.
void add_mixed_versions(const char* what, const std::map<std::string, std::vector<std::string>>& by_version,
                        PoolReasons& r) {
  if (by_version.size() < 2) return;
  std::vector<std::string> parts;
  for (const auto& [version, members] : by_version) {
    parts.push_back(fmt::format("{} on {}", version.empty() ? "(none)" : version, names(members)));
  }
  r.unjudged.push_back(
      fmt::format("{} versions mixed in the pool (give --target to fail the nodes off target): {}", what,
                  fmt::join(parts, "; ")));
}

// The spread of every component over the pool: "driver_version: 570.133.20 (3 nodes), 550.90.07 (node-d)".
std::vector<std::string> stack_spread(const std::vector<NodeSummary>& nodes) {
  std::map<std::string, std::map<std::string, std::vector<std::string>>> spread;
  for (const auto& n : nodes) {
    for (const auto& [component, values] : n.components) {
      for (const auto& value : values) spread[component][value].push_back(n.node);
    }
  }
  std::vector<std::string> out;
  for (const auto& c : target_components()) {
    auto it = spread.find(std::string(c.name));
    if (it == spread.end()) continue;
    std::vector<std::string> parts;
    for (const auto& [value, members] : it->second) {
      parts.push_back(it->second.size() == 1
                          ? fmt::format("{} (all {})", value, plural(members.size(), "node"))
                          : fmt::format("{} ({})", value, names(members)));
    }
    out.push_back(fmt::format("{}: {}", c.name, fmt::join(parts, ", ")));
  }
  return out;
}

// The nodes that warned and the flaky ones.
void add_node_warnings(const PoolTally& t, const std::vector<std::string>& flaky, PoolReasons& r) {
  if (!t.warned.empty()) {
    r.warns.push_back(fmt::format("{} warned: {}", plural(t.warned.size(), "node"), names(t.warned)));
  }
  if (!flaky.empty()) {
    r.warns.push_back(fmt::format("{} node{} flaky (runs alternate between pass and fail): {}", flaky.size(),
                                  flaky.size() == 1 ? " is" : "s are", names(flaky)));
  }
}

}  // namespace

Verdict GatePool::finish() {
  Verdict v;
  v.kind = "gate";
  v.strict = options_.strict;
  resolve_histories();
  std::vector<std::string> machine_notes, shared_machines;
  const std::size_t machines = count_machines(machine_notes, shared_machines);
  // Before the tally: a rack's held nodes count as failed (core/judge/gate_racks.hpp).
  const RackJudgement racks = judge_racks(nodes_);
  sort_by_outcome(nodes_);
  const PoolTally t = tally_nodes(nodes_, v);
  state_pool_stack(t, v);

  PoolReasons r;
  r.notes = duplicates_;
  r.notes.insert(r.notes.end(), notes_.begin(), notes_.end());
  r.notes.insert(r.notes.end(), machine_notes.begin(), machine_notes.end());
  r.fails.insert(r.fails.end(), racks.fails.begin(), racks.fails.end());
  r.notes.insert(r.notes.end(), racks.notes.begin(), racks.notes.end());
  for (const auto& n : nodes_) {
    if (!n.class_note.empty()) r.notes.push_back(n.class_note);
  }
  judge_pool_medians(nodes_, t.classes, class_baselines_, options_, v, r);

  const std::size_t total = nodes_.size();
  const FailureBudget budget = failure_budget(options_, total);
  judge_failure_budget(t, total, budget, r);
  add_unjudged_nodes(t, total, machines, shared_machines, options_, r);
  if (!options_.target) {
    // With a target, the nodes off it fail on their own; without one, a mixed pool has not
    // qualified one stack: inconclusive.
    add_mixed_versions("driver", t.nodes_by_driver, r);
    add_mixed_versions("CUDA driver", t.nodes_by_cuda, r);
  }
  v.stack_changes = stack_spread(nodes_);
  add_node_warnings(t, flaky_, r);

  decide_outcome(v, r.fails, r.unjudged, r.warns, r.notes, options_.strict);
  v.nodes.reserve(nodes_.size());
  for (auto& n : nodes_) v.nodes.push_back(std::move(n.verdict));
  assign_actions(v);  // the pool's action: the strongest any node needs (docs/actions.md)
  v.summary =
      gate_summary(v, GateCounts{t.failed.size(), t.inconclusive.size(), t.warned.size(), t.passed.size(),
                                 ignored_records_, budget.nodes, t.unreadable.size()});
  // The machines and the flaky nodes, by name, after the counts (docs/gate.md).
  for (const auto& line : shared_machines) v.summary += "; " + line;
  if (!flaky_.empty()) v.summary += "; flaky: " + names(flaky_);
  nodes_.clear();
  by_identity_.clear();
  return v;
}

}  // namespace gpuqual
