#pragma once
// The judgement of records (`gpuqual.verdict/v1`): the outcome, the reasons that decided it,
// and every row that was judged. compare, diff and gate all produce a Verdict; reporters render
// one Verdict in each output format.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/exit_code.hpp"
#include "core/record/record.hpp"
#include "core/rules/node_action.hpp"

namespace gpuqual {

inline constexpr const char* kVerdictSchema = "gpuqual.verdict/v1";

enum class Outcome { pass, warn, fail, inconclusive };
std::string_view to_string(Outcome o);
std::optional<Outcome> parse_outcome(std::string_view text);
// 0 pass/warn (warn → 1 with strict), 1 fail, 2 inconclusive.
int exit_code_for(Outcome o, bool strict);

// One metric of one GPU (or the node) judged against an expectation.
struct MetricRow {
  std::string check;  // check that produced it ("" when the metric is missing)
  std::string metric;
  std::optional<int> gpu;  // GPU index in the judged record; empty: node scope
  std::string gpu_uuid;    // for diff/gate matching and reports
  std::string unit;
  Direction direction = Direction::higher;
  std::optional<double> expected;   // baseline value, or the before-median in a diff
  std::optional<double> observed;   // record median (after-median in a diff)
  std::optional<double> delta_pct;  // (observed - expected) / expected * 100, signed
  double allowed_drop_pct = 0;      // drop that still passes, in %, after the noise model
  Status status = Status::error;    // pass / warn / fail / error (missing, unjudgeable)
  std::string reason;
  std::string mig_device{};  // the MIG device of a per-slice metric (Metric::mig_device), else ""
};

// One finding judged against the baseline's hard limits (or its own severity).
struct FindingRow {
  std::string check;
  Finding finding;
  Status status = Status::pass;
  std::string reason;
  // What the node needs for this row (docs/actions.md); none for a row that passes. Set by
  // assign_actions (core/verdict/verdict_action.hpp).
  NodeAction node_action = NodeAction::none;
};

// One check on one GPU (or the whole check when gpu is empty): the JUnit testcase unit.
struct CheckRow {
  std::string check;
  std::optional<int> gpu;
  Status status = Status::error;
  std::string reason;
  double duration_s = 0;  // the check's duration (JUnit `time`)
  // A skip that may sit in a passing verdict: not applicable to the hardware (its reason then
  // starts "not applicable (<code>)"), or the suite or baseline marks the check optional. Any
  // other skip could not measure: the verdict is inconclusive. Not written to JSON (the reason is).
  bool skip_accepted = false;
  // The MIG device ("MIG-<uuid>") of GPU `gpu` the row is of, when the check ran once per MIG
  // device (docs/mig.md, "Measuring each slice"): each slice is a row of its own.
  std::string mig_device{};
};

struct Verdict {
  std::string schema = kVerdictSchema;
  std::string kind = "compare";  // compare | diff | gate
  Outcome outcome = Outcome::inconclusive;
  bool strict = false;
  int exit_code = kExitInconclusive;
  std::string summary;  // the one-line summary printed last on stdout
  // The strongest action of its rows (and, for gate, of its nodes): docs/actions.md.
  NodeAction action = NodeAction::none;
  std::vector<std::string> reasons;  // what decided the outcome, most important first
  // What was judged.
  std::string hostname;
  std::string run_id;
  std::string hardware_class;
  std::string driver_version;
  std::string cuda_driver_version;
  std::string baseline;  // path of the baseline (or of the before-record for diff)
  std::vector<MetricRow> metrics;
  std::vector<FindingRow> findings;
  std::vector<CheckRow> checks;
  std::map<int, Status> per_gpu;  // roll-up per GPU index
  // diff: what changed in the stack ("driver: 550.90.07 → 570.133.20"); gate: per-node verdicts.
  std::vector<std::string> stack_changes;
  // compare and diff: the judged record's stack (core/record/stack_inventory.hpp), for the reports'
  // stack labels. Empty on gate's per-node verdicts (CompareOptions::with_stack).
  std::vector<StackComponent> stack;
  std::vector<Verdict> nodes;
};

// The rule every judgement (compare, diff, gate) ends with: any fail → fail; else anything that
// could not be judged → inconclusive; else any warning → warn (fail with `strict`); else pass.
// Sets v.outcome, v.exit_code and the actions (assign_actions), and appends the reasons in that order, then
// `notes` (which never decide).
void decide_outcome(Verdict& v, const std::vector<std::string>& fails,
                    const std::vector<std::string>& unjudged, const std::vector<std::string>& warns,
                    const std::vector<std::string>& notes, bool strict);

}  // namespace gpuqual
