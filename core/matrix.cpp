#include "core/matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/gate.hpp"

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
  std::vector<std::string> shown(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), kNamesInWhy)));
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

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

std::string_view to_string(MatrixState s) {
  switch (s) {
    case MatrixState::known_good: return "known-good";
    case MatrixState::known_bad: return "known-bad";
    case MatrixState::mixed: return "mixed";
    case MatrixState::unqualified: return "unqualified";
  }
  return "unqualified";
}

std::optional<MatrixState> parse_matrix_state(std::string_view text) {
  for (MatrixState s : {MatrixState::known_good, MatrixState::known_bad, MatrixState::mixed, MatrixState::unqualified}) {
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

MatrixObservation observe_record(const RunRecord& record, Outcome outcome) {
  MatrixObservation o;
  o.hardware_class = record.hardware_class.slug;
  o.gpu_product = record_gpu_product(record);
  o.compute_capability = record_compute_capability(record);
  o.stack = matrix_components(record);
  if (passed(outcome)) o.images = validated_images(record);
  o.node = record_node(record);
  o.run_id = record.run_id;
  o.started_at = record.started_at;
  o.outcome = outcome;
  return o;
}

void MatrixBuilder::add(MatrixObservation o) {
  auto [nit, fresh_node] = node_index_.emplace(o.node, node_names_.size());
  if (fresh_node) node_names_.push_back(o.node);
  const std::size_t node = nit->second;
  // A run handed in twice (the same file in two directories) is one run.
  if (!o.run_id.empty() && !runs_seen_.emplace(node, o.run_id).second) return;
  ++records_;
  auto [rit, fresh_row] = row_index_.emplace(row_key(o), rows_.size());
  if (fresh_row) {
    Acc a;
    a.first.hardware_class = o.hardware_class;
    a.first.gpu_product = o.gpu_product;
    a.first.compute_capability = o.compute_capability;
    a.first.stack = o.stack;
    rows_.push_back(std::move(a));
  }
  Acc& a = rows_[rit->second];
  for (auto& img : o.images) ++a.images[img];
  const auto ms = parse_rfc3339_ms(o.started_at);
  if (ms) {
    if (!a.first_ms || *ms < *a.first_ms) {
      a.first_ms = ms;
      a.first_seen = o.started_at;
    }
    if (!a.last_ms || *ms > *a.last_ms) {
      a.last_ms = ms;
      a.last_seen = o.started_at;
    }
  }
  events_.push_back(Event{node, rit->second, ms, o.outcome});
}

Matrix MatrixBuilder::finish() {
  const std::size_t n_rows = rows_.size();
  std::vector<std::set<std::size_t>> passed_nodes(n_rows), failed_nodes(n_rows);
  std::vector<int> runs_passed(n_rows, 0), runs_failed(n_rows, 0), runs_inconclusive(n_rows, 0);
  // Per node: its earliest passing run on each row, to find failures after a pass elsewhere.
  std::vector<std::map<std::size_t, std::int64_t>> first_pass(node_names_.size());  // node → row → ms
  for (const Event& e : events_) {
    if (passed(e.outcome)) {
      ++runs_passed[e.row];
      passed_nodes[e.row].insert(e.node);
      if (e.started_ms) {
        auto& slot = first_pass[e.node];
        auto it = slot.find(e.row);
        if (it == slot.end() || *e.started_ms < it->second) slot[e.row] = *e.started_ms;
      }
    } else if (e.outcome == Outcome::fail) {
      ++runs_failed[e.row];
      failed_nodes[e.row].insert(e.node);
    } else {
      ++runs_inconclusive[e.row];
    }
  }
  // Failures attributable to the stack: the node passed on another row of its class earlier.
  std::vector<std::vector<std::string>> blamed(n_rows);
  std::vector<std::string> blame_example(n_rows);
  for (const Event& e : events_) {
    if (e.outcome != Outcome::fail || !e.started_ms) continue;
    for (const auto& [row, ms] : first_pass[e.node]) {
      if (row == e.row || ms >= *e.started_ms) continue;
      if (rows_[row].first.hardware_class != rows_[e.row].first.hardware_class) continue;
      const std::string& name = node_names_[e.node];
      if (std::find(blamed[e.row].begin(), blamed[e.row].end(), name) == blamed[e.row].end()) {
        blamed[e.row].push_back(name);
        if (blame_example[e.row].empty())
          blame_example[e.row] = stack_difference(rows_[row].first.stack, rows_[e.row].first.stack);
      }
      break;
    }
  }

  Matrix m;
  m.min_nodes = min_nodes_;
  m.records = records_;
  m.unreadable = unreadable_;
  auto names_of = [&](const std::set<std::size_t>& ids) {
    std::vector<std::string> out;
    for (std::size_t id : ids) out.push_back(node_names_[id]);
    std::sort(out.begin(), out.end());
    return out;
  };
  for (std::size_t i = 0; i < n_rows; ++i) {
    Acc& a = rows_[i];
    MatrixRow r;
    r.hardware_class = a.first.hardware_class;
    r.gpu_product = a.first.gpu_product;
    r.compute_capability = a.first.compute_capability;
    r.stack = a.first.stack;
    for (const auto& [img, count] : a.images) r.images.push_back(img);
    r.nodes_passed = names_of(passed_nodes[i]);
    r.nodes_failed = names_of(failed_nodes[i]);
    r.runs_passed = runs_passed[i];
    r.runs_failed = runs_failed[i];
    r.runs_inconclusive = runs_inconclusive[i];
    r.first_seen = a.first_seen;
    r.last_seen = a.last_seen;
    std::sort(blamed[i].begin(), blamed[i].end());
    const std::size_t np = r.nodes_passed.size(), nf = r.nodes_failed.size();
    if (!blamed[i].empty()) {
      r.state = MatrixState::known_bad;
      r.why = fmt::format("failed on {} that passed before on another stack of the class: {} ({})",
                          plural(blamed[i].size(), "node"), some_names(blamed[i]), blame_example[i]);
    } else if (nf > 0) {
      r.state = MatrixState::mixed;
      r.why = fmt::format("failed on {} ({}), passed on {}; no failing node passed before on another stack, so the "
                          "failure may be the node's own",
                          plural(nf, "node"), some_names(r.nodes_failed), plural(np, "node"));
    } else if (np >= static_cast<std::size_t>(min_nodes_)) {
      r.state = MatrixState::known_good;
      r.why = fmt::format("passed on {} (at least {}), failed on none", plural(np, "node"), min_nodes_);
    } else {
      r.state = MatrixState::unqualified;
      r.why = np > 0 ? fmt::format("passed on {}, fewer than the {} --min-nodes asks; failed on none", plural(np, "node"),
                                   min_nodes_)
                     : fmt::format("no run passed or failed ({} inconclusive)", r.runs_inconclusive);
    }
    m.rows.push_back(std::move(r));
  }
  std::sort(m.rows.begin(), m.rows.end(), [](const MatrixRow& x, const MatrixRow& y) {
    return std::tie(x.hardware_class, x.stack) < std::tie(y.hardware_class, y.stack);
  });
  return m;
}

}  // namespace gpuqual
