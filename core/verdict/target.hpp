#pragma once
// The stack a node should be on (`gpuqual.target/v1`, YAML; format: docs/target.md): the
// component versions a record states (driver, CUDA driver, kernel, VBIOS, ...), each expected
// exactly, by prefix, or as a minimum, for every node or per hardware class. `--target FILE` on
// run, compare, diff and gate: a node off target fails with `stack.off_target`, naming the
// component, the expected and the found value; a component the record does not state cannot be
// judged (inconclusive).
//
// Extensible on purpose (the compatibility matrix reuses it: docs/matrix.md): new components are new names in
// target_components(), new match kinds new keys of a component rule.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

inline constexpr const char* kTargetSchema = "gpuqual.target/v1";

// absent: the component must not be stated (a rollback target pins the components its matrix
// row was grouped by, those the row's records did not state included).
enum class TargetMatch { exact, prefix, minimum, absent };
std::string_view to_string(TargetMatch m);

struct ComponentRule {
  TargetMatch match = TargetMatch::exact;
  std::string value;  // "570.133.20", "570.", "12.8"; empty for absent
};

struct Target {
  std::string schema = kTargetSchema;
  std::map<std::string, ComponentRule> components;                      // every node
  std::map<std::string, std::map<std::string, ComponentRule>> classes;  // slug → overrides
  std::string origin;
  // The rules for one class: the global ones, replaced component by component by the class's.
  std::map<std::string, ComponentRule> rules_for(const std::string& hardware_class) const;
};

// Strict loader: InputError "file: line N: $.path: problem" (exit 3).
Target parse_target_yaml(const std::string& text, const std::string& origin);
Target load_target(const std::string& path);

// The component names a target may use, with what they read in the record.
struct TargetComponent {
  std::string_view name;
  std::string_view meaning;
};
std::span<const TargetComponent> target_components();

// The recorded value(s) of every component: one for node facts, one per GPU for vbios (the
// distinct values, in GPU order). An unrecorded component has no entry.
std::map<std::string, std::vector<std::string>> record_components(const RunRecord& record);

// Whether `found` satisfies `rule`. A minimum compares dotted numbers (DottedVersion); a found
// value that is not one does not satisfy it.
bool component_matches(const ComponentRule& rule, const std::string& found);

struct TargetJudgement {
  std::vector<FindingRow> off_target;  // stack.off_target, status fail, one per component
  std::vector<std::string> unknown;    // components the record does not state: "kernel not recorded"
};

TargetJudgement judge_target(const RunRecord& record, const Target& target);

// The target as `gpuqual.target/v1` YAML that load_target reads back (every value quoted, each
// rule in its long form), after `comment` lines (each prefixed "# ").
std::string target_to_yaml(const Target& target, const std::vector<std::string>& comment = {});

}  // namespace gpuqual
