// `gpuqual gate RECORD... --baseline auto|FILE`: may the rollout widen past the canary pool?
// (README "Canary pools: gpuqual gate"; the pool rules are in core/gate.hpp.)
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "core/gate.hpp"
#include "core/gate_stream.hpp"
#include "core/input_error.hpp"
#include "core/noise_model_options.hpp"
#include "runner/command.hpp"
#include "runner/reporters/report_options.hpp"

namespace gpuqual {

namespace {

struct GateArgs {
  std::vector<std::string> records;
  std::vector<std::string> baselines{"auto"};
  std::string baselines_dir;
  std::string max_failed = "0";
  int expect_nodes = 0;
  std::string pool_allowed_drop = "2%";
  std::string confidence = "0.95";
  unsigned jobs = 0;
  ReportOptions report;
};

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

int run_gate(const GateArgs& a) {
  GateOptions o;
  parse_max_failed(a.max_failed, o);
  if (a.expect_nodes > 0) o.expect_nodes = a.expect_nodes;
  o.pool_allowed_drop = *parse_drop_percent(a.pool_allowed_drop);
  o.confidence = *parse_confidence(a.confidence);
  o.strict = a.report.strict;
  const std::vector<std::string> paths = expand_record_paths(a.records);
  const bool all_auto = std::all_of(a.baselines.begin(), a.baselines.end(), [](auto& b) { return b == "auto"; });
  const bool any_auto = std::any_of(a.baselines.begin(), a.baselines.end(), [](auto& b) { return b == "auto"; });
  if (any_auto && !all_auto) throw InputError("--baseline", "", "give either auto or baseline files, not both");
  std::unique_ptr<BaselineSource> source;
  if (all_auto) {
    source = std::make_unique<AutoBaselines>(baselines_dir(a.baselines_dir));
  } else {
    source = std::make_unique<FixedBaselines>(FixedBaselines::from_files(a.baselines));
  }
  // The table format shows the pool table (core/gate_summary.hpp) above the pool rows.
  return emit_reports(gate_records(paths, *source, o, a.jobs), a.report);
}

}  // namespace

void add_gate_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<GateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "gate",
      "Judge a canary pool: every node against the baseline of its class, then the pool (--max-failed, the pool "
      "median of each metric, --expect-nodes)");
  cmd->add_option("RECORD", args->records, "Run records, or directories of *.json run records")->required();
  cmd->add_option("--baseline", args->baselines,
                  "auto (baselines/<class>.yaml for each class in the pool) or a baseline YAML file; repeat once per "
                  "class for a mixed pool")
      ->type_name("auto|FILE")
      ->capture_default_str();
  cmd->add_option("--baselines-dir", args->baselines_dir, "Where --baseline auto looks")->type_name("DIR");
  cmd->add_option("--max-failed", args->max_failed, "Nodes that may fail before the pool fails: a count, or a percent (10%)")
      ->type_name("N|P%")
      ->check(CLI::Validator(
          [](std::string& s) {
            GateOptions o;
            return parse_max_failed(s, o) ? std::string() : "expected a count (3) or a percentage (10%)";
          },
          "N|P%"))
      ->capture_default_str();
  cmd->add_option("--expect-nodes", args->expect_nodes, "Fewer distinct nodes than this is inconclusive (exit 2)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--pool-allowed-drop", args->pool_allowed_drop,
                  "Drop (percent) the pool median of a metric may show against the baseline (capped by the metric's "
                  "tolerance)")
      ->check(CLI::Validator(
          [](std::string& s) { return parse_drop_percent(s) ? std::string() : "expected a percentage in [0, 100)"; }, "PCT"))
      ->capture_default_str();
  cmd->add_option("--confidence", args->confidence, "Two-sided confidence of the pool-median interval")
      ->check(CLI::Validator(
          [](std::string& s) { return parse_confidence(s) ? std::string() : "expected a confidence in (0, 1), e.g. 0.95"; },
          "C"))
      ->capture_default_str();
  cmd->add_option("--jobs", args->jobs, "Threads that read and judge records (default: one per CPU)")->check(CLI::Range(1u, 256u));
  add_report_options(cmd, args->report);
  cmd->callback([args, &selected] { selected = [args] { return run_gate(*args); }; });
}

}  // namespace gpuqual
