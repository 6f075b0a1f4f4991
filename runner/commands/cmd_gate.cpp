// `gpuqual gate RECORD... --baseline auto|FILE`: may the rollout widen past the canary pool?
// (docs/gate.md; the pool rules are in core/judge/gate.hpp.)
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "core/base/input_error.hpp"
#include "core/judge/gate.hpp"
#include "core/judge/gate_stream.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/expect_gpus_option.hpp"
#include "runner/cli/gate_pool_flags.hpp"
#include "runner/cli/target_option.hpp"
#include "runner/reporters/report_options.hpp"

namespace gpuqual {

namespace {

struct GateArgs {
  std::vector<std::string> records;
  std::vector<std::string> baselines{"auto"};
  std::string baselines_dir;
  GatePoolFlags pool;
  unsigned jobs = 0;
  int expect_gpus = 0;
  std::string target;
  ReportOptions report;
};

int run_gate(const GateArgs& a) {
  GateOptions o = gate_options_from(a.pool, a.report.strict);
  o.expect_gpus = expect_gpus_value(a.expect_gpus);
  const std::unique_ptr<Target> target = load_target_flag(a.target);
  o.target = target.get();
  const std::vector<std::string> paths = expand_record_paths(a.records);
  const bool all_auto =
      std::all_of(a.baselines.begin(), a.baselines.end(), [](auto& b) { return b == "auto"; });
  const bool any_auto =
      std::any_of(a.baselines.begin(), a.baselines.end(), [](auto& b) { return b == "auto"; });
  if (any_auto && !all_auto)
    throw InputError("--baseline", "", "give either auto or baseline files, not both");
  std::unique_ptr<BaselineSource> source;
  if (all_auto) {
    source = std::make_unique<AutoBaselines>(baselines_dir(a.baselines_dir));
  } else {
    source = std::make_unique<FixedBaselines>(FixedBaselines::from_files(a.baselines));
  }
  // The table format shows the pool table (render_pool_table, runner/reporters/reporters.hpp) above
  // the pool rows.
  return emit_reports(gate_records(paths, *source, o, a.jobs), a.report);
}

}  // namespace

void add_gate_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<GateArgs>();
  CLI::App* cmd = app.add_subcommand("gate",
                                     "Judge a canary pool: every node against the baseline of its class, "
                                     "then the pool (--max-failed, the pool "
                                     "median of each metric, --expect-nodes)");
  cmd->add_option("RECORD", args->records, "Run records, or directories of *.json run records")->required();
  cmd->add_option(
         "--baseline", args->baselines,
         "auto (baselines/<class>.yaml for each class in the pool) or a baseline YAML file; repeat once per "
         "class for a mixed pool")
      ->type_name("auto|FILE")
      ->capture_default_str();
  cmd->add_option("--baselines-dir", args->baselines_dir, "Where --baseline auto looks")->type_name("DIR");
  add_gate_pool_options(cmd, args->pool);
  add_expect_gpus_option(cmd, args->expect_gpus);
  add_target_option(cmd, args->target);
  cmd->add_option("--jobs", args->jobs, "Threads that read and judge records (default: one per CPU)")
      ->check(CLI::Range(1u, 256u));
  add_report_options(cmd, args->report);
  cmd->callback([args, &selected] { selected = [args] { return run_gate(*args); }; });
}

}  // namespace gpuqual
