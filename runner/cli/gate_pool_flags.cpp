#include "runner/cli/gate_pool_flags.hpp"

#include <cstdlib>

#include "core/verdict/noise_model_options.hpp"

namespace gpuqual {

namespace {

// "3" → 3 nodes; "10%" → 10 percent of the pool.
bool parse_max_failed(const std::string& text, GateOptions& o) {
  if (text.empty()) return false;
  char* end = nullptr;
  if (text.back() == '%') {
    const double pct = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() - 1 || !(pct >= 0 && pct <= 100)) return false;
    o.max_failed_pct = pct;
    return true;
  }
  const long n = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || n < 0 || n > 1000000) return false;
  o.max_failed = static_cast<int>(n);
  return true;
}

}  // namespace

std::vector<CLI::Option*> add_gate_pool_options(CLI::App* cmd, GatePoolFlags& flags) {
  std::vector<CLI::Option*> added;
  added.push_back(cmd->add_option("--max-failed", flags.max_failed,
                                  "Nodes that may fail before the pool fails: a count, or a percent (10%)")
                      ->type_name("N|P%")
                      ->check(CLI::Validator(
                          [](std::string& s) {
                            GateOptions o;
                            return parse_max_failed(s, o) ? std::string()
                                                          : "expected a count (3) or a percentage (10%)";
                          },
                          "N|P%"))
                      ->capture_default_str());
  added.push_back(cmd->add_option("--expect-nodes", flags.expect_nodes,
                                  "Fewer distinct nodes than this is inconclusive (exit 2)")
                      ->check(CLI::Range(1, 1000000)));
  added.push_back(cmd->add_option("--pool-allowed-drop", flags.pool_allowed_drop,
                                  "Drop (percent) the pool median of a metric may show against the baseline "
                                  "(capped by the metric's "
                                  "tolerance)")
                      ->check(CLI::Validator(
                          [](std::string& s) {
                            return parse_drop_percent(s) ? std::string()
                                                         : "expected a percentage in [0, 100)";
                          },
                          "PCT"))
                      ->capture_default_str());
  added.push_back(
      cmd->add_option("--confidence", flags.confidence, "Two-sided confidence of the pool-median interval")
          ->check(CLI::Validator(
              [](std::string& s) {
                return parse_confidence(s) ? std::string() : "expected a confidence in (0, 1), e.g. 0.95";
              },
              "C"))
          ->capture_default_str());
  added.push_back(add_max_age_option(cmd, flags.freshness.max_age));
  added.push_back(add_node_file_option(cmd, flags.freshness.node_file));
  added.push_back(
      cmd->add_option("--consecutive", flags.consecutive,
                      "A node qualifies only after this many passing runs in a row since its last "
                      "non-passing one (its records in the pool are its history; default 1)")
          ->type_name("N")
          ->check(CLI::Range(1, 1000)));
  added.push_back(cmd->add_option("--rack-label", flags.rack_label,
                                  "The node label (read from each record) that names a node's rack, "
                                  "judged whole; none: no racks (docs/gate.md, Racks)")
                      ->type_name("LABEL|none")
                      ->capture_default_str());
  return added;
}

GateOptions gate_options_from(const GatePoolFlags& flags, bool strict) {
  GateOptions o;
  parse_max_failed(flags.max_failed, o);
  if (flags.expect_nodes > 0) o.expect_nodes = flags.expect_nodes;
  o.pool_allowed_drop = *parse_drop_percent(flags.pool_allowed_drop);
  o.confidence = *parse_confidence(flags.confidence);
  o.strict = strict;
  o.freshness = freshness_from(flags.freshness);
  o.consecutive = flags.consecutive;
  o.rack_label = rack_label_from_flag(flags.rack_label);
  return o;
}

}  // namespace gpuqual
