#include "core/fleet/matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/base/plural.hpp"
#include "core/base/utc_time.hpp"
#include "core/verdict/outcome_badness.hpp"

namespace gpuqual {

namespace {

constexpr std::size_t kNamesInWhy = 5;

bool passed(Outcome o) { return o == Outcome::pass || o == Outcome::warn; }

std::string row_key(const MatrixObservation& o) {
  // \x1f never appears in a class slug or a version string: the key cannot be ambiguous.
  std::string key = o.hardware_class;
  for (const auto& [name, value] : o.stack) key += fmt::format("\x1f{}={}", name, value);
  return key;
}

std::string some_names(const std::vector<std::string>& names) {
  std::vector<std::string> shown(
      names.begin(), names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), kNamesInWhy)));
  std::string out = fmt::format("{}", fmt::join(shown, ", "));
  if (names.size() > shown.size()) out += fmt::format(" and {} more", names.size() - shown.size());
  return out;
}

// "driver_version 550.90.07 → 570.133.20": how row `to` differs from row `from`.
std::string stack_difference(const StackComponents& from, const StackComponents& to) {
  std::map<std::string, std::pair<std::string, std::string>> d;
  for (const auto& [n, v] : from) d[n].first = v;
  for (const auto& [n, v] : to) d[n].second = v;
  std::vector<std::string> parts;
  for (const auto& [n, fv] : d) {
    if (fv.first == fv.second) continue;
    parts.push_back(fmt::format("{} {} → {}", n, fv.first.empty() ? "(none)" : fv.first,
                                fv.second.empty() ? "(none)" : fv.second));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string_view to_string(MatrixState s) {
  switch (s) {
    case MatrixState::known_good:
      return "known-good";
    case MatrixState::known_bad:
      return "known-bad";
    case MatrixState::mixed:
      return "mixed";
    case MatrixState::unqualified:
      return "unqualified";
  }
  return "unqualified";
}

std::optional<MatrixState> parse_matrix_state(std::string_view text) {
  for (MatrixState s :
       {MatrixState::known_good, MatrixState::known_bad, MatrixState::mixed, MatrixState::unqualified}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

const std::string* MatrixRow::component(const std::string& name) const {
  for (const auto& [n, v] : stack) {
    if (n == name) return &v;
  }
  return nullptr;
}

MatrixObservation observe_record(const RunRecord& record, Outcome outcome, const std::string& rack_label) {
  MatrixObservation o;
  o.hardware_class = record.hardware_class.slug;
  o.gpu_product = record_gpu_product(record);
  o.compute_capability = record_compute_capability(record);
  o.stack = matrix_components(record);
  o.complete = record.complete;
  if (passed(outcome) && record.complete) o.images = validated_images(record);
  o.node = record_node(record);
  o.run_id = record.run_id;
  o.started_at = record.started_at;
  o.outcome = outcome;
  if (!rack_label.empty()) o.rack = rack_of(record.node.k8s_labels, rack_label);
  for (const auto& uuid : record_gpu_uuids(record)) o.gpu_keys.push_back(std::hash<std::string>{}(uuid));
  return o;
}

MatrixBuilder::Id MatrixBuilder::Interned::operator()(const std::string& s) {
  auto [it, fresh] = index.emplace(s, static_cast<Id>(names.size()));
  if (fresh) names.push_back(s);
  return it->second;
}

MatrixBuilder::Id MatrixBuilder::machine_of(Id x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];
    x = parent_[x];
  }
  return x;
}

MatrixBuilder::Id MatrixBuilder::gpu_identity(std::uint64_t key) {
  auto [it, fresh] = gpu_identity_.emplace(key, static_cast<Id>(parent_.size()));
  if (fresh) parent_.push_back(it->second);
  return it->second;
}

void MatrixBuilder::unite(Id a, Id b) {
  a = machine_of(a);
  b = machine_of(b);
  if (a != b) parent_[std::max(a, b)] = std::min(a, b);
}

// Of two records with one run id: the complete one (an interrupted snapshot must not hide the
// final record), then the worse outcome, then a fixed order of what the matrix shows, so the
// choice never depends on which file was read first.
bool MatrixBuilder::replaces(const Event& c, const Event& h) const {
  if (c.complete != h.complete) return c.complete;
  const int cb = outcome_badness(c.outcome), hb = outcome_badness(h.outcome);
  if (cb != hb) return cb > hb;
  auto images = [&](const Event& e) {
    std::vector<std::string_view> out;
    for (Id i : e.images) out.push_back(images_.names[i]);
    std::sort(out.begin(), out.end());
    return out;
  };
  return std::forward_as_tuple(rows_[c.row].key, names_.names[c.name], c.started_at, images(c)) <
         std::forward_as_tuple(rows_[h.row].key, names_.names[h.name], h.started_at, images(h));
}

void MatrixBuilder::add(MatrixObservation o) {
  // A run that did not finish never passes (docs/matrix.md); what it failed still counts.
  if (!o.complete && passed(o.outcome)) o.outcome = Outcome::inconclusive;
  if (!passed(o.outcome)) o.images.clear();
  const std::string key = row_key(o);
  auto [rit, fresh_row] = row_index_.emplace(key, static_cast<Id>(rows_.size()));
  if (fresh_row) rows_.push_back(Acc{key, o.hardware_class, o.gpu_product, o.compute_capability, o.stack});
  Acc& a = rows_[rit->second];
  // The smallest name a row's records give, not the first read.
  if (!o.gpu_product.empty() && (a.gpu_product.empty() || o.gpu_product < a.gpu_product))
    a.gpu_product = o.gpu_product;
  if (!o.compute_capability.empty() &&
      (a.compute_capability.empty() || o.compute_capability < a.compute_capability))
    a.compute_capability = o.compute_capability;

  Event e;
  e.row = rit->second;
  e.name = names_(o.node);
  // One machine: every record whose GPU UUIDs overlap, whatever its node name.
  e.identified = !o.gpu_keys.empty();
  if (o.gpu_keys.empty()) {
    auto [it, fresh] = node_identity_.emplace(e.name, static_cast<Id>(parent_.size()));
    if (fresh) parent_.push_back(it->second);
    e.identity = it->second;
  } else {
    e.identity = gpu_identity(o.gpu_keys.front());
    for (std::uint64_t k : o.gpu_keys) unite(e.identity, gpu_identity(k));
  }
  e.started_ms = parse_rfc3339_ms(o.started_at);
  e.started_at = std::move(o.started_at);
  e.outcome = o.outcome;
  e.complete = o.complete;
  for (const auto& img : o.images) e.images.push_back(images_(img));
  if (!o.rack.empty()) e.rack = racks_(o.rack);

  if (!o.run_id.empty()) {
    auto [it, fresh_run] = run_index_.emplace(o.run_id, events_.size());
    if (!fresh_run) {
      if (replaces(e, events_[it->second])) events_[it->second] = std::move(e);
      return;
    }
  }
  events_.push_back(std::move(e));
}

namespace {

struct RowTally {
  std::map<std::uint32_t, std::set<std::uint32_t>> passed, failed;  // machine → its names on this row
  int runs_passed = 0, runs_failed = 0, runs_inconclusive = 0;
  int unidentified_passes = 0;  // passing runs whose records name no GPU
  std::set<std::uint32_t> images;
  std::optional<std::pair<std::int64_t, std::string>> first, last;
  bool any = false;
};

// The row's first and last run by start time.
void note_seen(RowTally& t, const std::optional<std::int64_t>& started_ms, const std::string& started_at) {
  if (!started_ms) return;
  const std::pair<std::int64_t, std::string> at{*started_ms, started_at};
  if (!t.first || at < *t.first) t.first = at;
  if (!t.last || at > *t.last) t.last = at;
}

// "node-a", or "node-a (also node-b)" for one machine seen under several node names.
std::string machine_label(const std::set<std::uint32_t>& names, const std::vector<std::string>& all) {
  std::vector<std::string> n;
  for (auto id : names) n.push_back(all[id]);
  std::sort(n.begin(), n.end());
  if (n.size() == 1) return n.front();
  return fmt::format("{} (also {})", n.front(), fmt::join(n.begin() + 1, n.end(), ", "));
}

std::vector<std::string> labels(const std::map<std::uint32_t, std::set<std::uint32_t>>& machines,
                                const std::vector<std::string>& all) {
  std::vector<std::string> out;
  for (const auto& [m, names] : machines) out.push_back(machine_label(names, all));
  std::sort(out.begin(), out.end());
  return out;
}

// What a row's passing nodes count toward known-good: a node in no rack counts; a rack's nodes
// count only when all of the rack's nodes passed on the row.
struct RackCredit {
  std::size_t counted = 0;
  std::vector<std::string> partial;  // "rack-a (2 of 4 nodes)"
};

RackCredit rack_credit(const RowTally& t, const MatrixRackIndex& idx,
                       const std::vector<std::string>& rack_names) {
  RackCredit c;
  std::map<std::uint32_t, std::size_t> passed_in;  // rack → its machines that passed here
  for (const auto& [machine, names] : t.passed) {
    auto it = idx.rack_of.find(machine);
    if (it == idx.rack_of.end()) {
      ++c.counted;
    } else {
      ++passed_in[it->second];
    }
  }
  for (const auto& [rack, n] : passed_in) {
    const std::size_t whole = idx.members.at(rack).size();
    if (n == whole) {
      c.counted += n;
    } else {
      c.partial.push_back(fmt::format("{} ({} of {} nodes)", rack_names[rack], n, whole));
    }
  }
  std::sort(c.partial.begin(), c.partial.end());  // not the order the racks were first read
  return c;
}

void state_of(MatrixRow& r, const std::vector<std::string>& blamed, const std::string& example, int min_nodes,
              int unidentified_passes, const RackCredit& racks) {
  const std::size_t np = r.nodes_passed.size(), nf = r.nodes_failed.size();
  if (!blamed.empty()) {
    r.state = MatrixState::known_bad;
    r.why = fmt::format("failed on {} that passed before on another stack of the class: {} ({})",
                        plural(blamed.size(), "node"), some_names(blamed), example);
  } else if (nf > 0) {
    r.state = MatrixState::mixed;
    r.why = fmt::format(
        "failed on {} ({}), passed on {}; no failing node passed before on another stack, so the "
        "failure may be the node's own",
        plural(nf, "node"), some_names(r.nodes_failed), plural(np, "node"));
  } else if (racks.counted >= static_cast<std::size_t>(min_nodes)) {
    r.state = MatrixState::known_good;
    r.why = fmt::format("passed on {} (at least {}), failed on none", plural(np, "node"), min_nodes);
  } else {
    r.state = MatrixState::unqualified;
    r.why = np > 0 ? fmt::format("passed on {}{}, fewer than the {} --min-nodes asks; failed on none",
                                 plural(np, "node"),
                                 racks.counted == np ? "" : fmt::format(" ({} counting)", racks.counted),
                                 min_nodes)
                   : fmt::format("no run passed or failed ({} inconclusive)", r.runs_inconclusive);
  }
  if (!racks.partial.empty()) {
    r.why += fmt::format("; a rack counts only whole, and these passed in part: {}",
                         fmt::join(racks.partial, ", "));
  }
  if (unidentified_passes > 0) {
    r.why += fmt::format("; {} named no GPU (every UUID unread) and count toward no node",
                         plural(unidentified_passes, "passing run"));
  }
}

}  // namespace

// Each machine is in the rack of its newest event (ties: the greater rack name), so the index
// does not depend on the order the records were read.
MatrixRackIndex MatrixBuilder::index_racks() {
  std::map<Id, std::tuple<std::int64_t, std::string, Id>> newest;  // machine → (started, name, rack)
  for (const Event& e : events_) {
    if (!e.rack || !e.identified) continue;
    const auto key = std::make_tuple(e.started_ms.value_or(std::numeric_limits<std::int64_t>::min()),
                                     racks_.names[*e.rack], *e.rack);
    auto [it, fresh] = newest.emplace(machine_of(e.identity), key);
    if (!fresh && key > it->second) it->second = key;
  }
  MatrixRackIndex idx;
  for (const auto& [machine, key] : newest) {
    idx.rack_of[machine] = std::get<2>(key);
    idx.members[std::get<2>(key)].insert(machine);
  }
  return idx;
}

Matrix MatrixBuilder::finish() {
  const std::size_t n_rows = rows_.size();
  std::vector<RowTally> tally(n_rows);
  std::map<std::pair<Id, Id>, Seen> seen;  // (machine, row)
  for (const Event& e : events_) {
    const Id m = machine_of(e.identity);
    RowTally& t = tally[e.row];
    t.any = true;
    note_seen(t, e.started_ms, e.started_at);
    // A run naming no GPU is placed by a node name another machine can carry: it never shows one
    // machine passing on one stack and failing on another, so it blames no stack (docs/matrix.md).
    Seen unplaced;
    Seen& mr = e.identified ? seen[{m, e.row}] : unplaced;
    if (passed(e.outcome)) {
      ++t.runs_passed;
      // A run whose record names no GPU (every UUID unread) cannot be told from another machine's
      // run under another node name: it counts toward no node (docs/matrix.md).
      if (e.identified) {
        t.passed[m].insert(e.name);
      } else {
        ++t.unidentified_passes;
      }
      t.images.insert(e.images.begin(), e.images.end());
      if (e.started_ms && (!mr.earliest_pass || *e.started_ms < *mr.earliest_pass))
        mr.earliest_pass = e.started_ms;
    } else if (e.outcome == Outcome::fail) {
      ++t.runs_failed;
      t.failed[m].insert(e.name);
      if (e.started_ms && (!mr.latest_fail || *e.started_ms > *mr.latest_fail)) mr.latest_fail = e.started_ms;
    } else {
      ++t.runs_inconclusive;
    }
  }
  const auto blame = blame_stacks(seen);
  const MatrixRackIndex rack_index = index_racks();

  Matrix m;
  m.min_nodes = min_nodes_;
  m.records = events_.size();
  m.unreadable = unreadable_;
  for (std::size_t i = 0; i < n_rows; ++i) {
    RowTally& t = tally[i];
    if (!t.any) continue;  // only a record that lost to another of its run made this row
    const Acc& a = rows_[i];
    MatrixRow r;
    r.hardware_class = a.hardware_class;
    r.gpu_product = a.gpu_product;
    r.compute_capability = a.compute_capability;
    r.stack = a.stack;
    for (Id img : t.images) r.images.push_back(images_.names[img]);
    std::sort(r.images.begin(), r.images.end());
    r.nodes_passed = labels(t.passed, names_.names);
    r.nodes_failed = labels(t.failed, names_.names);
    r.runs_passed = t.runs_passed;
    r.runs_failed = t.runs_failed;
    r.runs_inconclusive = t.runs_inconclusive;
    if (t.first) r.first_seen = t.first->second;
    if (t.last) r.last_seen = t.last->second;
    // Blamed machines by label; the why's example is the first label's stack change.
    std::vector<std::pair<std::string, Id>> blamed;
    if (auto it = blame.find(static_cast<Id>(i)); it != blame.end()) {
      for (const auto& [machine, from] : it->second)
        blamed.emplace_back(machine_label(t.failed.at(machine), names_.names), from);
    }
    std::sort(blamed.begin(), blamed.end());
    std::vector<std::string> blamed_names;
    for (const auto& b : blamed) blamed_names.push_back(b.first);
    state_of(r, blamed_names,
             blamed.empty() ? "" : stack_difference(rows_[blamed.front().second].stack, a.stack), min_nodes_,
             t.unidentified_passes, rack_credit(t, rack_index, racks_.names));
    m.rows.push_back(std::move(r));
  }
  std::sort(m.rows.begin(), m.rows.end(), [](const MatrixRow& x, const MatrixRow& y) {
    return std::tie(x.hardware_class, x.stack) < std::tie(y.hardware_class, y.stack);
  });
  return m;
}

// Failures attributable to the stack: a machine failed on row R after it had passed on another
// row P of the same class. Per failing row and machine, the stack it came from is the P it
// started passing on last before the failure (ties: the first P in row order).
std::map<MatrixBuilder::Id, std::map<MatrixBuilder::Id, MatrixBuilder::Id>> MatrixBuilder::blame_stacks(
    const std::map<std::pair<Id, Id>, Seen>& seen) const {
  std::map<Id, std::map<Id, Id>> out;  // failing row → machine → the row it passed on before
  for (auto lo = seen.begin(); lo != seen.end();) {
    auto hi = lo;
    while (hi != seen.end() && hi->first.first == lo->first.first) ++hi;  // one machine's rows
    for (auto f = lo; f != hi; ++f) {
      if (!f->second.latest_fail) continue;
      const Id row = f->first.second;
      std::optional<Id> best;
      std::int64_t best_ms = 0;
      for (auto p = lo; p != hi; ++p) {
        const Id prow = p->first.second;
        if (prow == row || !p->second.earliest_pass || *p->second.earliest_pass >= *f->second.latest_fail)
          continue;
        if (rows_[prow].hardware_class != rows_[row].hardware_class) continue;
        const std::int64_t ms = *p->second.earliest_pass;
        const bool earlier_row = best && std::tie(rows_[prow].stack) < std::tie(rows_[*best].stack);
        if (!best || ms > best_ms || (ms == best_ms && earlier_row)) {
          best = prow;
          best_ms = ms;
        }
      }
      if (best) out[row][f->first.first] = *best;
    }
    lo = hi;
  }
  return out;
}

}  // namespace gpuqual
