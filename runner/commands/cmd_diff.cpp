// `gpuqual diff BEFORE AFTER`: did this node get worse across an upgrade? (docs/diff.md;
// the decision rules are in core/judge/diff.hpp, the statistics in
// core/verdict/noise_model.hpp.)
#include <fmt/format.h>

#include <memory>

#include "core/baseline/baseline.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/diff_pair.hpp"
#include "core/record/record_io.hpp"
#include "core/verdict/noise_model_options.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/freshness_options.hpp"
#include "runner/cli/target_option.hpp"
#include "runner/commands/diff_inputs.hpp"
#include "runner/reporters/report_options.hpp"

namespace gpuqual {

namespace {

struct DiffArgs {
  std::string before;
  std::string after;
  std::string allowed_drop = "2%";
  std::string confidence = "0.95";
  std::string baseline;  // empty: the class's baseline judges the after-record, no per-metric tolerances
  std::string baselines_dir;
  std::string target;
  std::string max_age;  // --max-age: the after-record's (runner/cli/freshness_options.hpp)
  ReportOptions report;
};

int run_diff(const DiffArgs& a) {
  const RunRecord before = read_record(a.before);
  const RunRecord after = read_record(a.after);
  require_before_after(a.before, before, a.after, after);
  DiffOptions o;
  o.allowed_drop = *parse_drop_percent(a.allowed_drop);
  o.confidence = *parse_confidence(a.confidence);
  o.strict = a.report.strict;
  o.before_origin = a.before;
  // The after-record is judged as compare judges it too (docs/diff.md): its class's baseline,
  // found as --baseline auto finds it unless a file is given.
  const DiffBaselines baselines = load_diff_baselines(a.baseline, a.baselines_dir, after.hardware_class.slug);
  apply_diff_baselines(baselines, o);
  const std::unique_ptr<Target> target = load_target_flag(a.target);
  o.target = target.get();
  const Freshness freshness = freshness_from(FreshnessFlags{a.max_age, ""});
  Verdict v = diff_records(before, after, o);
  // An after-record older than --max-age does not qualify the node now (core/verdict/record_age.hpp).
  withhold_qualification(v, freshness_problems(after, after.node.hostname, freshness));
  return emit_reports(v, a.report);
}

CLI::Validator percent_validator() {
  return CLI::Validator(
      [](std::string& s) {
        return parse_drop_percent(s) ? std::string() : "expected a percentage in [0, 100), e.g. 2 or 2.5%";
      },
      "PCT");
}

CLI::Validator confidence_validator() {
  return CLI::Validator(
      [](std::string& s) {
        return parse_confidence(s) ? std::string() : "expected a confidence in (0, 1), e.g. 0.95 or 95%";
      },
      "C");
}

}  // namespace

void add_diff_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff",
                                     "Judge a node's run record after an upgrade against its record from "
                                     "before: stack changes first, then every "
                                     "metric decided on both sets of samples with a noise model "
                                     "(Hodges-Lehmann shift, Mann-Whitney interval)");
  cmd->add_option("BEFORE", args->before, "Run record from before the change (gpuqual.run/v1 JSON)")
      ->required();
  cmd->add_option("AFTER", args->after, "Run record from after the change, same node")->required();
  cmd->add_option(
         "--allowed-drop", args->allowed_drop,
         "Drop (percent) a metric may show before it fails; it fails only when the whole confidence interval "
         "lies beyond it")
      ->check(percent_validator())
      ->capture_default_str();
  cmd->add_option("--confidence", args->confidence, "Two-sided confidence of the interval")
      ->check(confidence_validator())
      ->capture_default_str();
  cmd->add_option(
         "--baseline", args->baseline,
         "The after-record is also judged against this baseline as compare judges it (default: its "
         "class's, as auto finds it); a measured one given here lends each metric it names its tolerance "
         "(and warn_tolerance)")
      ->type_name("FILE|auto");
  cmd->add_option("--baselines-dir", args->baselines_dir, "Where the class's baseline is looked for")
      ->type_name("DIR");
  add_target_option(cmd, args->target);
  add_max_age_option(cmd, args->max_age);
  add_report_options(cmd, args->report);
  cmd->callback([args, &selected] { selected = [args] { return run_diff(*args); }; });
}

}  // namespace gpuqual
