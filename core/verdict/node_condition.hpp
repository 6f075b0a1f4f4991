#pragma once
// The Node condition `GpuQualified` (docs/kubernetes.md, "The condition GpuQualified"): which
// status, reason and message one verdict gives, and what to write over the Node's previous
// condition. `gpuqual node-condition` (runner/commands/cmd_node_condition.cpp) calls it;
// containers/bin/gpuqual-node-condition only reads the Node and sends the patch.
//
//   status   True (exit 0), False (exit 1), Unknown (any other exit: inconclusive, a killed or
//            crashed harness); exit 3 is about the Job, not the node: nothing is written
//   reason   Qualified for a pass; else the deciding finding code, metric or check in CamelCase
//            (ecc.uncorrected_volatile -> EccUncorrectedVolatile), QualificationFailed or
//            QualificationInconclusive when the verdict names none
//   message  gpuqual's one-line summary, after "action: <action>; " when the verdict asks for
//            more than none (docs/actions.md)
//
// Consecutive passes (gate's --consecutive, docs/gate.md): a node whose condition is not True
// becomes True only after N passing runs in a row. One pod sees one run, and the node's earlier
// records are not in it, so the count is kept on the Node, structured: the annotation
// gpuqual.io/consecutive-passes, written in the same status patch as the condition and bound to
// it by the condition's lastHeartbeatTime. A count whose heartbeat is not the condition's (the
// condition was written since by something else) counts nothing: a node is never qualified
// sooner than N passes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuqual {

inline constexpr const char* kGpuQualifiedType = "GpuQualified";
inline constexpr const char* kConsecutivePassesAnnotation = "gpuqual.io/consecutive-passes";
// When the node's qualification expires (docs/kubernetes.md, "Valid until"): an annotation in
// RFC 3339 (2026-12-10T12:00:00Z) and a label of the same key in the compact UTC form label values
// allow (20261210T120000Z: no ':'), so schedulers select on it and re-validation reads it
// without gpuqual.
inline constexpr const char* kValidUntilKey = "gpuqual.io/valid-until";

// The new condition's status, reason and message, before the node's history is applied.
struct ConditionVerdict {
  std::string status;  // "True", "False" or "Unknown"
  std::string reason;
  std::string message;
};

// A finding code, metric or check as a condition reason: the alphanumeric runs, each with its
// first letter upper-cased, joined; "Code" first when that does not start with a letter.
std::string camel_case_reason(std::string_view code);
// ^[A-Za-z][A-Za-z0-9]*$: what `--unknown REASON` must be.
bool is_camel_case(std::string_view reason);

// The condition one gpuqual exit gives; nullopt for exit 3 (usage or input error: the condition
// is left as it is). `verdict`: gpuqual's --format json verdict, or nullptr when there is none
// (a verdict that is not a JSON object is none: the exit code decides). `summary`: the summary
// line ("" when there is none).
std::optional<ConditionVerdict> condition_from_exit(int exit_code, const std::string& summary,
                                                    const nlohmann::json* verdict);
// --unknown REASON MESSAGE (re-validation: expired, stale). Throws InputError for a reason that
// is not CamelCase.
ConditionVerdict unknown_condition(const std::string& reason, const std::string& message);

struct GpuCondition {
  std::string status, reason, message, last_heartbeat, last_transition;
};

// What the Node holds now: its GpuQualified condition and the passing runs in a row counted
// with it.
struct NodeConditionState {
  std::optional<GpuCondition> previous;
  std::size_t passes_in_a_row = 0;    // 0 unless the annotation is bound to `previous`
  std::vector<std::string> warnings;  // an annotation that could not be used, and why
};

// Reads a Node (GET /api/v1/nodes/NAME/status). Throws InputError(file, path, problem) for a
// Node whose fields have the wrong types.
NodeConditionState node_condition_state(const nlohmann::json& node, const std::string& file);

struct ConditionWrite {
  GpuCondition condition;
  std::size_t passes_in_a_row = 0;  // counted with this write: the annotation's value
};

// The condition to write at `now` (RFC 3339). `consecutive`: passing runs in a row a node whose
// condition is not True needs (0 and 1: the first pass).
ConditionWrite next_condition(const ConditionVerdict& v, const NodeConditionState& node,
                              const std::string& now, std::size_t consecutive);

// The condition as the Node holds it, and the strategic merge patch of the status subresource
// that writes it with the annotation.
nlohmann::ordered_json condition_json(const GpuCondition& c);
nlohmann::ordered_json condition_patch(const ConditionWrite& w);

// With --max-age: the patch also sets kValidUntilKey (label and annotation) to the heartbeat plus
// `max_age_s` when the condition written is True, and removes both (null) when it is not: a node
// that is not qualified has no validity. Throws InputError for a heartbeat that is not RFC 3339.
void add_valid_until(nlohmann::ordered_json& patch, const ConditionWrite& w, double max_age_s);
// The label form back to Unix ms ("20261210T120000Z"); nullopt for anything else.
std::optional<std::int64_t> parse_valid_until_label(std::string_view label);

}  // namespace gpuqual
