// `gpuqual compare RECORD --baseline auto|FILE`: judge one run record against the baseline of
// its hardware class (docs/compare.md).
#include <memory>

#include "core/baseline/baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/record/record_io.hpp"
#include "runner/cli/class_option.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/expect_gpus_option.hpp"
#include "runner/cli/freshness_options.hpp"
#include "runner/cli/target_option.hpp"
#include "runner/commands/compare_baseline.hpp"
#include "runner/reporters/report_options.hpp"

namespace gpuqual {

namespace {

struct CompareArgs {
  std::string record;
  std::string baseline = "auto";
  std::string baselines_dir;
  std::string class_override;
  int expect_gpus = 0;
  std::string target;
  FreshnessFlags freshness;
  ReportOptions report;
};

int run_compare(const CompareArgs& a) {
  RunRecord record = read_record(a.record);
  if (!a.class_override.empty()) {
    record.hardware_class.slug = a.class_override;
    record.hardware_class.overridden = true;
  }
  const std::unique_ptr<Baseline> baseline =
      load_record_baseline(a.baseline, a.baselines_dir, record.hardware_class.slug);
  const std::unique_ptr<Target> target = load_target_flag(a.target);
  const Freshness freshness = freshness_from(a.freshness);
  CompareOptions options{a.report.strict, expect_gpus_value(a.expect_gpus), target.get()};
  AutoBaselines slices(baselines_dir(a.baselines_dir));  // MIG slice classes (docs/mig.md)
  options.unit_baselines = &slices;
  Verdict verdict = compare_record(record, baseline.get(), options);
  // Too old (--max-age) or stale against the node as it is now (--node-file): no qualification.
  const std::string node =
      record.node.k8s_node_name.empty() ? record.node.hostname : record.node.k8s_node_name;
  withhold_qualification(verdict, freshness_problems(record, node, freshness));
  return emit_reports(verdict, a.report);
}

}  // namespace

void add_compare_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd =
      app.add_subcommand("compare", "Judge a run record against the baseline of its hardware class");
  cmd->add_option("RECORD", args->record, "Run record (gpuqual.run/v1 JSON)")->required();
  cmd->add_option("--baseline", args->baseline, "auto (baselines/<class>.yaml) or a baseline YAML file")
      ->capture_default_str();
  cmd->add_option("--baselines-dir", args->baselines_dir,
                  "Where --baseline auto looks (default: $GPUQUAL_BASELINES_DIR, the installed "
                  "share/gpuqual/baselines, "
                  "or the source tree's baselines/)")
      ->type_name("DIR");
  add_class_option(cmd, args->class_override, "Judge as this hardware class instead of the record's");
  add_expect_gpus_option(cmd, args->expect_gpus);
  add_target_option(cmd, args->target);
  add_max_age_option(cmd, args->freshness.max_age);
  add_node_file_option(cmd, args->freshness.node_file);
  add_report_options(cmd, args->report);
  cmd->callback([args, &selected] { selected = [args] { return run_compare(*args); }; });
}

}  // namespace gpuqual
