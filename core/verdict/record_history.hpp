#pragma once
// A node's runs in order, as far as the records can prove an order (docs/gate.md, "A node's
// runs over time"): which run is the newest, how many passing runs follow its last failure
// (--consecutive), and whether its runs alternate between pass and fail (flaky).
//
// The order of two runs:
//   - the same boot (the same non-empty boot_id): by uptime_s, which only grows within a boot;
//     without it by started_at; then the later argument;
//   - the node's current boot (the Kubernetes Node's status.nodeInfo.bootID, when known) is after
//     every other boot a record names;
//   - any other two boots, or a record without a boot id (against any run, the current boot's
//     included: it may be of the current boot, and newer): unknown. A boot id is random, and a
//     wall clock can be reset by a reboot (a dead RTC, a wrong NTP), so started_at alone cannot
//     tell which of two boots came later. Where the order is unknown, nothing is assumed: the
//     worst verdict of the runs that may be the newest counts, and only runs that provably follow
//     every non-passing run count toward --consecutive. An old pass never hides a newer fail.
//
// Plain data, no record: gate keeps one RunPoint per record of a node, and the GpuQualified node
// condition can build the same history from what it stores.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct RunPoint {
  std::string boot_id;                     // "" when the record has none
  std::optional<double> uptime_s;          // node uptime when the run took its inventory
  std::optional<std::int64_t> started_ms;  // started_at, Unix ms
  std::size_t order = 0;                   // argument position: the last tiebreak
  Outcome outcome = Outcome::inconclusive;
  std::optional<std::int64_t> ended_ms;  // ended_at, Unix ms (else the run ended as it started)
};

enum class RunOrder { before, after, unknown };

// Whether `a` ran before or after `b`. `current_boot`: the node's boot now ("" unknown).
RunOrder run_order(const RunPoint& a, const RunPoint& b, const std::string& current_boot);

// The worse of two outcomes: fail, then inconclusive, then warn, then pass.
bool worse_outcome(Outcome a, Outcome b);

struct RunHistory {
  // The runs that may be the newest: one when the order is known, else the newest of each boot
  // that cannot be placed against the others.
  std::vector<std::size_t> newest;
  std::size_t counted = 0;  // the run whose verdict counts: the worst of `newest`
  bool order_known = true;  // newest.size() == 1
  // Runs that provably follow every non-passing run (pass, or warn without strict). With the
  // order known this is the number of passes in a row since the last non-passing run. Two runs
  // whose times overlap (one started before the other ended: a copy of one run under another
  // run_id) are one machine's one run and count once.
  std::size_t passes_in_a_row = 0;
  // The runs switch between passing and failing at least twice in an order the records prove
  // (pass, fail, pass): the outcomes of that chain, oldest first, in `pattern`.
  bool flaky = false;
  std::vector<Outcome> pattern;
  std::size_t boots = 0;  // distinct boots (a record without a boot id is one of its own)
};

// `runs` must not be empty. `strict`: a warn is not a passing run.
RunHistory judge_history(const std::vector<RunPoint>& runs, const std::string& current_boot, bool strict);

// "pass, fail, pass" for a pattern.
std::string outcome_pattern(const std::vector<Outcome>& pattern);

}  // namespace gpuqual
