#pragma once
// A verdict's action (docs/actions.md): each finding row that warns or fails takes the action the
// severity tables give its code (core/rules/health_severity.hpp), raised to the floor its status
// gives (a failure drains at least, a warning watches); a failed metric or check drains, a warned
// one watches; the verdict's action is the strongest of them and of its nodes' (gate). Rows that
// pass or could not be judged add nothing, so a passing node needs none.
#include "core/rules/health_severity.hpp"
#include "core/rules/node_action.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// The least action a row of this status needs: fail → drain, warn → watch, else none.
NodeAction status_floor_action(Status s);

// The action one finding row needs under `table`.
NodeAction finding_row_action(const SeverityTable& table, const FindingRow& row);

// Sets every finding row's node_action and v.action under `table`.
void assign_actions(Verdict& v, const SeverityTable& table);
// The same under judging_severity_table(), read only when a finding row warns or fails.
void assign_actions(Verdict& v);

}  // namespace gpuqual
