#include "core/verdict/record_history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "core/verdict/outcome_badness.hpp"

namespace gpuqual {

namespace {

bool passing(Outcome o, bool strict) { return o == Outcome::pass || (o == Outcome::warn && !strict); }

// One boot's runs, oldest first. Within a boot uptime orders the runs when every run has it (a
// mix with started_at could be circular); else started_at when every run has it; else the
// argument order.
std::vector<std::size_t> sorted_chain(const std::vector<RunPoint>& runs, std::vector<std::size_t> chain) {
  const bool by_uptime =
      std::all_of(chain.begin(), chain.end(), [&](std::size_t i) { return runs[i].uptime_s.has_value(); });
  const bool by_start =
      std::all_of(chain.begin(), chain.end(), [&](std::size_t i) { return runs[i].started_ms.has_value(); });
  auto key = [&](std::size_t i) {
    const RunPoint& r = runs[i];
    const double primary = by_uptime ? *r.uptime_s : by_start ? static_cast<double>(*r.started_ms) : 0.0;
    const std::int64_t start = r.started_ms.value_or(std::numeric_limits<std::int64_t>::min());
    return std::make_tuple(primary, by_start ? start : 0, r.order);
  };
  std::sort(chain.begin(), chain.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return chain;
}

// One machine cannot run two runs at once: runs whose [started_at, ended_at] overlap are one.
bool overlap(const RunPoint& a, const RunPoint& b) {
  if (!a.started_ms || !b.started_ms) return false;
  const std::int64_t a_end = std::max(*a.started_ms, a.ended_ms.value_or(*a.started_ms));
  const std::int64_t b_end = std::max(*b.started_ms, b.ended_ms.value_or(*b.started_ms));
  return *a.started_ms <= b_end && *b.started_ms <= a_end;
}

// Passing ↔ failing switches along one chain, ignoring inconclusive runs.
std::size_t switches(const std::vector<RunPoint>& runs, const std::vector<std::size_t>& chain, bool strict,
                     std::vector<Outcome>& pattern) {
  std::size_t n = 0;
  std::optional<bool> last;
  for (std::size_t i : chain) {
    const Outcome o = runs[i].outcome;
    if (o == Outcome::inconclusive || (o == Outcome::warn && strict)) continue;
    const bool ok = passing(o, strict);
    pattern.push_back(o);
    if (last && *last != ok) ++n;
    last = ok;
  }
  return n;
}

// --consecutive: the runs every non-passing run provably came before, two overlapping runs once.
// Across chains only the current boot's runs follow another chain's, and only a chain that names
// a boot: a run without a boot id may be newer than any of them.
std::size_t passes_after_last_bad(const std::vector<RunPoint>& runs,
                                  const std::vector<std::vector<std::size_t>>& chains,
                                  std::optional<std::size_t> current, bool strict) {
  std::vector<std::optional<std::size_t>> last_bad(chains.size());
  for (std::size_t c = 0; c < chains.size(); ++c) {
    for (std::size_t p = 0; p < chains[c].size(); ++p) {
      if (!passing(runs[chains[c][p]].outcome, strict)) last_bad[c] = p;
    }
  }
  auto unplaced = [&](std::size_t c) { return runs[chains[c].front()].boot_id.empty(); };
  std::vector<std::size_t> passes;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    for (std::size_t p = 0; p < chains[c].size(); ++p) {
      bool follows_all = !last_bad[c] || *last_bad[c] < p;
      for (std::size_t o = 0; o < chains.size() && follows_all; ++o) {
        if (o != c && last_bad[o]) follows_all = current && c == *current && !unplaced(o);
      }
      const std::size_t i = chains[c][p];
      if (follows_all && std::none_of(passes.begin(), passes.end(),
                                      [&](std::size_t k) { return overlap(runs[i], runs[k]); })) {
        passes.push_back(i);
      }
    }
  }
  return passes.size();
}

}  // namespace

bool worse_outcome(Outcome a, Outcome b) { return outcome_badness(a) > outcome_badness(b); }

RunOrder run_order(const RunPoint& a, const RunPoint& b, const std::string& current_boot) {
  if (!a.boot_id.empty() && a.boot_id == b.boot_id) {
    if (a.uptime_s && b.uptime_s && *a.uptime_s != *b.uptime_s) {
      return *a.uptime_s < *b.uptime_s ? RunOrder::before : RunOrder::after;
    }
    if (a.started_ms && b.started_ms && *a.started_ms != *b.started_ms) {
      return *a.started_ms < *b.started_ms ? RunOrder::before : RunOrder::after;
    }
    if (a.order == b.order) return RunOrder::unknown;
    return a.order < b.order ? RunOrder::before : RunOrder::after;
  }
  // Only a run that names another boot provably ran before the current one: a run without a
  // boot id may be of the current boot, before or after it.
  if (!current_boot.empty() && !a.boot_id.empty() && !b.boot_id.empty()) {
    if (a.boot_id == current_boot && b.boot_id != current_boot) return RunOrder::after;
    if (b.boot_id == current_boot && a.boot_id != current_boot) return RunOrder::before;
  }
  return RunOrder::unknown;
}

RunHistory judge_history(const std::vector<RunPoint>& runs, const std::string& current_boot, bool strict) {
  RunHistory h;
  // Chains: one per boot id; a record without one is a boot of its own.
  std::map<std::string, std::vector<std::size_t>> by_boot;
  std::vector<std::vector<std::size_t>> chains;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].boot_id.empty()) {
      chains.push_back({i});
    } else {
      by_boot[runs[i].boot_id].push_back(i);
    }
  }
  std::optional<std::size_t> current;
  for (auto& [boot, chain] : by_boot) {
    if (!current_boot.empty() && boot == current_boot) current = chains.size();
    chains.push_back(sorted_chain(runs, std::move(chain)));
  }
  h.boots = chains.size();
  // A run without a boot id cannot be placed against the current boot: it stays among the
  // runs that may be the newest beside the current boot's last (an old pass that names the
  // current boot never hides a newer failure that names none).
  auto unplaced = [&](const std::vector<std::size_t>& c) { return runs[c.front()].boot_id.empty(); };
  for (std::size_t c = 0; c < chains.size(); ++c) {
    if (!current || c == *current || unplaced(chains[c])) h.newest.push_back(chains[c].back());
  }
  h.order_known = h.newest.size() == 1;
  h.counted = h.newest.front();
  for (std::size_t i : h.newest) {
    const RunPoint& r = runs[i];
    const RunPoint& c = runs[h.counted];
    if (worse_outcome(r.outcome, c.outcome) || (r.outcome == c.outcome && r.order > c.order)) h.counted = i;
  }
  h.passes_in_a_row = passes_after_last_bad(runs, chains, current, strict);
  for (const auto& c : chains) {
    std::vector<Outcome> pattern;
    if (switches(runs, c, strict, pattern) >= 2 && !h.flaky) {
      h.flaky = true;
      h.pattern = std::move(pattern);
    }
  }
  return h;
}

std::string outcome_pattern(const std::vector<Outcome>& pattern) {
  std::vector<std::string_view> words;
  for (Outcome o : pattern) words.push_back(to_string(o));
  return fmt::format("{}", fmt::join(words, ", "));
}

}  // namespace gpuqual
