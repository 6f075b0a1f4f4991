#pragma once
// The data tables that give each health finding and each Xid its severity, meaning, action and
// source: baselines/health-findings.yaml and baselines/xid-severity.yaml, plus an optional
// operator overrides file per fleet. Rules (health_rules.hpp) never hard-code a severity.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/rules/node_action.hpp"

namespace gpuqual {

struct SeverityRule {
  Severity severity = Severity::warn;
  // For application-side Xids: the severity when the Xid hit a GPU while gpuqual's own
  // known-good kernels ran on it (XidEvent::during_check set).
  std::optional<Severity> own_kernel_severity;
  std::string mnemonic;  // NVIDIA's name (Xids only)
  std::string meaning;
  std::string action;
  // The structured action (docs/actions.md): what the node needs when this finding warns or fails.
  NodeAction node_action = NodeAction::watch;
  std::string source;
};

struct SeverityTable {
  std::map<std::string, SeverityRule> findings;  // "ecc.uncorrected_volatile" → rule
  std::map<int, SeverityRule> xids;              // 79 → rule
  SeverityRule unknown_xid;                      // codes not in `xids`
  std::vector<std::string> origins;              // files this table was read from, in order

  // Throws std::out_of_range naming the code when the table lacks it (load_* validate that
  // every code in health_finding_codes() is present, so this is a programming error).
  const SeverityRule& finding(const std::string& code) const;
  const SeverityRule& xid(int code) const;  // unknown_xid when not listed
};

inline constexpr const char* kHealthFindingsFile = "health-findings.yaml";
inline constexpr const char* kXidSeverityFile = "xid-severity.yaml";
inline constexpr const char* kHealthOverridesEnv = "GPUQUAL_HEALTH_OVERRIDES";

// Reads <dir>/health-findings.yaml and <dir>/xid-severity.yaml.
SeverityTable load_severity_tables(const std::string& dir, const std::vector<std::string>& required_codes);

// Applies an overrides document (schema gpuqual.health-overrides/v1): entries under `findings:`
// (existing codes only: a typo is an error) and `xids:` (any code; a new code needs a severity)
// replace only the fields they give.
void apply_severity_overrides(SeverityTable& table, const std::string& yaml, const std::string& origin);
void load_severity_overrides(SeverityTable& table, const std::string& path);

// The table compare, diff and gate judge findings by: the shipped tables of the first of
// $GPUQUAL_BASELINES_DIR, the installed share/gpuqual/baselines and the source tree's baselines/
// that holds both files, with $GPUQUAL_HEALTH_OVERRIDES applied when set (as `run` applies it).
// Read once per process; throws InputError when no directory has the tables.
const SeverityTable& judging_severity_table();

// The least severity the table gives a finding code: an Xid's ("xid.79"; an unlisted Xid takes
// the table's `unknown` entry; with own_kernel_severity, the lower of the two), or a health
// finding code's. nullopt for a code the table does not rate (other checks' findings).
std::optional<Severity> table_severity(const SeverityTable& table, const std::string& code);

// The action the table gives a finding code (an Xid's, an unlisted Xid's `unknown` entry, or a
// health finding code's); nullopt for a code the table does not rate.
std::optional<NodeAction> table_node_action(const SeverityTable& table, const std::string& code);

// `f` with its severity raised to the table's: a record may raise a severity, never lower one
// the table gives (an Xid 79 written as `warn` is judged `fail`). A finding whose detail records
// the NVML answer GPU_IS_LOST takes gpu.lost's severity at least, whatever its code.
// docs/health.md, "Severities at judging time".
Finding with_table_severity(const SeverityTable& table, Finding f);

// Where the shipped tables are: `flag_value` if given, else $GPUQUAL_BASELINES_DIR, else
// <exe>/../share/gpuqual/baselines of an installed binary, else the source tree's baselines/.
std::string severity_tables_dir(const std::string& flag_value);

}  // namespace gpuqual
