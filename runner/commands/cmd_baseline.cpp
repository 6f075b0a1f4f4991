// `gpuqual baseline build RECORD... --output FILE [--class CLASS]`: a baseline from healthy run
// records (docs/baselines.md; the statistics are in
// core/fleet/baseline_build.hpp). After writing, the new baseline is loaded back from its own text and
// every record it came from is judged against it, so a reviewer sees which nodes it would fail. A
// MIG node's record is judged for every class it has at once (docs/mig.md, "Classes and floors"):
// the built baseline for its own class, the baselines directory's for the record's others.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <memory>

#include "core/base/atomic_file.hpp"
#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/base/plural.hpp"
#include "core/base/text_escape.hpp"
#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/fleet/baseline_build.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/gate_stream.hpp"
#include "core/record/record_reader.hpp"
#include "core/verdict/noise_model_options.hpp"
#include "runner/cli/class_option.hpp"
#include "runner/cli/command.hpp"

namespace gpuqual {

namespace {

struct BuildArgs {
  std::vector<std::string> records;
  std::string output;
  std::string class_slug;
  std::string baselines_dir;
  std::string tolerance_floor = "3%";
  double spread_k = 4.0;
};

// The baseline just built for its class, the baselines directory's for any other.
class BuiltOverDir : public BaselineSource {
 public:
  BuiltOverDir(const Baseline& built, const std::string& dir) : built_(built), dir_(baselines_dir(dir)) {}
  const Baseline* for_class(const std::string& slug) override {
    return slug == built_.hardware_class ? &built_ : dir_.for_class(slug);
  }

 private:
  const Baseline& built_;
  AutoBaselines dir_;
};

int run_build(const BuildArgs& a) {
  BaselineBuildOptions o;
  o.hardware_class = a.class_slug;
  o.tolerance_floor = *parse_drop_percent(a.tolerance_floor);
  o.spread_k = a.spread_k;
  const std::vector<std::string> paths = expand_record_paths(a.records);
  BaselineBuilder builder(o);
  StreamingRecordReader reader;
  // One run given twice (the same file, a copy) would count twice in every median: exit 3.
  std::map<std::string, std::string> file_of_run;
  for (const auto& p : paths) {
    const RunRecord r = reader.read(p);
    if (auto [it, fresh] = file_of_run.emplace(r.run_id, p); !fresh && !r.run_id.empty()) {
      throw InputError(
          p, "$.run_id",
          fmt::format("the same run as {} (run_id {}, started {}): a run given twice would count "
                      "twice in the baseline",
                      it->second, r.run_id, r.started_at));
    }
    builder.add(r, p);
  }
  BaselineBuildResult res = builder.finish();

  for (const auto& e : res.excluded)
    print_line(stdout, fmt::format("left out: {} ({}): {}", e.path, e.node, e.reason));
  for (const auto& n : res.notes) print_line(stdout, "note: " + n);
  if (res.baseline.metrics.empty()) {
    std::printf(
        "gpuqual baseline build: nothing written: no healthy record with metrics (%zu of %zu left out)\n",
        res.excluded.size(), paths.size());
    return kExitInconclusive;
  }
  for (const auto& o : res.outliers) print_line(stdout, "outlier: " + o);

  const std::string yaml = baseline_to_yaml(res.baseline);
  // Load the text we are about to write: a baseline that cannot be read back is never written.
  const Baseline loaded = parse_baseline_yaml(yaml, a.output);
  std::size_t passing = 0;
  std::vector<std::string> not_passing;
  BuiltOverDir source(loaded, a.baselines_dir);
  for (const auto& p : res.included) {
    const RunRecord r = reader.read(p);
    const Verdict v = compare_with_baselines(r, source, CompareOptions{});
    if (v.outcome == Outcome::pass) {
      ++passing;
    } else {
      not_passing.push_back(fmt::format("{} ({})", p, v.summary));
    }
  }
  for (const auto& n : not_passing) print_line(stdout, "self-check: does not pass: " + n);
  write_file_atomic(a.output, yaml);
  std::printf(
      "gpuqual baseline build: wrote %s for %s: %zu metrics from %d runs on %zu nodes; %zu records left out, "
      "%s; %zu of %zu source records pass against it\n",
      a.output.c_str(), res.baseline.hardware_class.c_str(), res.baseline.metrics.size(),
      res.baseline.provenance.runs, res.baseline.provenance.nodes.size(), res.excluded.size(),
      plural(res.outliers.size(), "outlier").c_str(), passing, res.included.size());
  return kExitPass;
}

}  // namespace

void add_baseline_command(CLI::App& app, CommandAction& selected) {
  CLI::App* group = app.add_subcommand("baseline", "Make baselines");
  group->require_subcommand(1);
  auto args = std::make_shared<BuildArgs>();
  CLI::App* cmd =
      group->add_subcommand("build",
                            "Build a baseline for one hardware class from healthy run records: median over "
                            "per-node medians, MAD spread, "
                            "suggested tolerances, provenance; unhealthy records are left out and listed");
  cmd->add_option("RECORD", args->records, "Run records, or directories of *.json run records")->required();
  cmd->add_option("--output,-o", args->output, "Baseline YAML to write (atomically)")
      ->required()
      ->type_name("FILE");
  add_class_option(cmd, args->class_slug,
                   "Build this hardware class from the records' figures of it (needed when the records "
                   "mix classes; a MIG node's records are of its whole GPUs' class and of "
                   "<class>-mig-<profile> per profile of its MIG devices)");
  cmd->add_option("--baselines-dir", args->baselines_dir,
                  "Where the self-check finds the baselines of a record's other classes (a MIG node's "
                  "whole GPUs or other profiles; default: $GPUQUAL_BASELINES_DIR, the installed "
                  "share/gpuqual/baselines, or the source tree's baselines/)")
      ->type_name("DIR");
  cmd->add_option("--tolerance-floor", args->tolerance_floor, "Smallest tolerance suggested, in percent")
      ->check(CLI::Validator(
          [](std::string& s) {
            return parse_drop_percent(s) ? std::string() : "expected a percentage in [0, 100)";
          },
          "PCT"))
      ->capture_default_str();
  cmd->add_option("--spread-k", args->spread_k,
                  "Suggested tolerance = max(floor, K x robust CV of the healthy values)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->callback([args, &selected] { selected = [args] { return run_build(*args); }; });
}

}  // namespace gpuqual
