// `gpuqual report RECORD [--baseline auto|FILE] [--before RECORD] --html FILE` and
// `gpuqual report --gate RECORD... --html FILE`: the verdict of compare, diff or gate as one
// self-contained HTML page (docs/report.md). The exit code is the verdict's, as for the
// command it mirrors: 0 pass/warn, 1 fail (warn too with --strict), 2 inconclusive, 3 bad input.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <memory>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"
#include "core/fleet/matrix_io.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/diff_pair.hpp"
#include "core/judge/gate.hpp"
#include "core/judge/gate_stream.hpp"
#include "core/record/record_io.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/gate_pool_flags.hpp"
#include "runner/commands/compare_baseline.hpp"
#include "runner/commands/diff_inputs.hpp"
#include "runner/html/html_report.hpp"

namespace gpuqual {

namespace {

struct ReportArgs {
  std::string record;
  std::string baseline = "auto";
  bool baseline_given =
      false;  // with --before, only an explicit --baseline lends tolerances (as `gpuqual diff`)
  std::string baselines_dir;
  std::string before;
  std::vector<std::string> gate;
  GatePoolFlags pool;           // with --gate: the pool rules, as on `gpuqual gate`
  std::string pool_flag_given;  // the first of those flags on the command line, if any
  std::string html;
  std::string matrix;  // --matrix: the compatibility matrix section (docs/matrix.md)
  bool strict = false;
};

// The meaning and action texts of finding codes. A report without them is still a report, so a
// table that does not load is a note, not an error.
// The shipped tables, not --baselines-dir: that one holds class baselines, often a test's own.
std::unique_ptr<SeverityTable> load_meanings() {
  try {
    return std::make_unique<SeverityTable>(
        load_severity_tables(severity_tables_dir(""), health_finding_codes()));
  } catch (const std::exception& e) {
    print_line(stderr, fmt::format("gpuqual: note: findings are shown without their meaning: {}", e.what()));
    return nullptr;
  }
}

int finish(const Verdict& v, html::ReportInput in, const ReportArgs& a) {
  std::unique_ptr<Matrix> matrix;
  if (!a.matrix.empty()) matrix = std::make_unique<Matrix>(load_matrix(a.matrix));
  in.matrix = matrix.get();
  const std::string page = html::render_report(in);
  try {
    write_file_atomic(a.html, page);
  } catch (const std::exception& e) {
    throw InputError(a.html, "", fmt::format("cannot write the report: {}", e.what()));
  }
  print_line(stdout, v.summary);
  std::fflush(stdout);
  if (a.strict && v.outcome == Outcome::warn) return exit_code_for(v.outcome, true);
  return v.exit_code;
}

int run_gate_report(const ReportArgs& a) {
  const std::vector<std::string> paths = expand_record_paths(a.gate);
  std::unique_ptr<BaselineSource> source;
  if (a.baseline == "auto") {
    source = std::make_unique<AutoBaselines>(baselines_dir(a.baselines_dir));
  } else {
    source = std::make_unique<FixedBaselines>(FixedBaselines::from_files({a.baseline}));
  }
  const Verdict verdict = gate_records(paths, *source, gate_options_from(a.pool, a.strict), 1);
  html::ReportInput in;
  in.verdict = &verdict;
  // The heat map wants every metric of every node; the gate verdict keeps only a trimmed view.
  // An unreadable record is a row of its own, as gate judges it (core/judge/gate.hpp: unreadable_node):
  // the rest of the pool is still shown (gate_records stops only when no record can be read).
  for (std::size_t i = 0; i < paths.size(); ++i) {
    html::PoolNode node;
    node.path = paths[i];
    try {
      const RunRecord record = read_record(paths[i]);
      node.node = record.node.k8s_node_name.empty() ? record.node.hostname : record.node.k8s_node_name;
      node.verdict = compare_with_baselines(record, *source, CompareOptions{a.strict});
    } catch (const InputError& e) {
      NodeSummary unreadable = unreadable_node(paths[i], e.what(), i);
      node.node = unreadable.node;
      node.verdict = std::move(unreadable.verdict);
    }
    in.pool.push_back(std::move(node));
  }
  return finish(verdict, in, a);
}

int run_report(const ReportArgs& a) {
  if (!a.gate.empty()) {
    if (!a.record.empty() || !a.before.empty())
      throw InputError("--gate", "",
                       "a pool report takes its records after --gate only (no RECORD, no --before)");
    return run_gate_report(a);
  }
  if (!a.pool_flag_given.empty()) {
    throw InputError(a.pool_flag_given, "", "judges a pool: give it with --gate RECORD...");
  }
  if (a.record.empty()) throw InputError("RECORD", "", "give a run record, or --gate RECORD... for a pool");
  const RunRecord record = read_record(a.record);
  const std::unique_ptr<SeverityTable> meanings = load_meanings();
  const html::BurninTelemetry telemetry = html::load_burnin_telemetry(record, a.record);
  html::ReportInput in;
  in.record = &record;
  in.severity = meanings.get();
  in.telemetry = &telemetry;
  if (!a.before.empty()) {
    const RunRecord before = read_record(a.before);
    require_before_after(a.before, before, a.record, record);
    // As `gpuqual diff` (docs/diff.md): the after-record is judged against its class's baseline
    // too; a measured one given with --baseline lends its per-metric tolerances.
    const DiffBaselines baselines =
        load_diff_baselines(a.baseline_given ? a.baseline : "", a.baselines_dir, record.hardware_class.slug);
    DiffOptions o;
    apply_diff_baselines(baselines, o);
    o.strict = a.strict;
    o.before_origin = a.before;
    const Verdict verdict = diff_records(before, record, o);
    in.verdict = &verdict;
    in.before = &before;
    return finish(verdict, in, a);
  }
  const std::unique_ptr<Baseline> baseline =
      load_record_baseline(a.baseline, a.baselines_dir, record.hardware_class.slug);
  AutoBaselines slices(baselines_dir(a.baselines_dir));  // MIG slice classes (docs/mig.md)
  CompareOptions options{a.strict};
  options.unit_baselines = &slices;
  const Verdict verdict = compare_record(record, baseline.get(), options);
  in.verdict = &verdict;
  return finish(verdict, in, a);
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand("report",
                                     "Write the verdict of a record (against its baseline, or against "
                                     "--before) or of a pool (--gate) as one "
                                     "self-contained HTML page; exit code as compare/diff/gate");
  cmd->add_option("RECORD", args->record, "Run record (gpuqual.run/v1 JSON)");
  CLI::Option* baseline =
      cmd->add_option("--baseline", args->baseline,
                      "auto (baselines/<class>.yaml) or a baseline YAML file; with --before: per-metric "
                      "tolerances only when given (else 2 %, as gpuqual diff)")
          ->capture_default_str();
  cmd->add_option("--baselines-dir", args->baselines_dir,
                  "Where --baseline auto (and the finding tables) are looked up")
      ->type_name("DIR");
  cmd->add_option("--before", args->before,
                  "Before-record of the same node: show a diff (before/after bars, stack changes)")
      ->type_name("RECORD");
  cmd->add_option("--gate", args->gate, "Records (or directories of records) of a pool: verdict and heat map")
      ->type_name("RECORD...");
  const std::vector<CLI::Option*> pool_options = add_gate_pool_options(cmd, args->pool);
  cmd->add_option("--html", args->html, "Where to write the HTML report (atomically)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--matrix", args->matrix,
                  "Add the compatibility matrix (gpuqual matrix build) as a section")
      ->type_name("FILE");
  cmd->add_flag("--strict", args->strict, "Warnings count as failures (exit 1)");
  cmd->callback([args, baseline, pool_options, &selected] {
    args->baseline_given = baseline->count() > 0;
    for (const CLI::Option* o : pool_options) {
      if (o->count() > 0 && args->pool_flag_given.empty()) args->pool_flag_given = o->get_name();
    }
    selected = [args] { return run_report(*args); };
  });
}

}  // namespace gpuqual
