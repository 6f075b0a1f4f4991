// `gpuqual matrix build|check|rollback`: the known-good compatibility matrix per hardware class
// (docs/matrix.md; the states are in core/fleet/matrix.hpp, the rules in core/fleet/matrix_check.hpp).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

#include "core/base/atomic_file.hpp"
#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"
#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/fleet/matrix_check.hpp"
#include "core/fleet/matrix_io.hpp"
#include "core/fleet/matrix_rollback.hpp"
#include "core/fleet/matrix_stream.hpp"
#include "core/judge/gate_stream.hpp"
#include "runner/cli/class_option.hpp"
#include "runner/cli/command.hpp"
#include "runner/html/html_matrix.hpp"

namespace gpuqual {

namespace {

constexpr const char* kDefaultMatrix = "matrix.yaml";

struct MatrixArgs {
  std::vector<std::string> records;
  std::string output = kDefaultMatrix;
  std::string markdown, html, baselines_dir, target, matrix = kDefaultMatrix, class_slug, as_of;
  int min_nodes = kDefaultMinNodes;
  unsigned jobs = 0;
  std::string rack_label = kCliqueLabel;  // "none": no racks
};

int run_build(const MatrixArgs& a) {
  const std::vector<std::string> paths = expand_record_paths(a.records);
  // A matrix of no records would say nothing about any stack (docs/matrix.md: exit 3).
  if (paths.empty())
    throw InputError(fmt::format("{}", fmt::join(a.records, ", ")), "", "no *.json run records in it");
  AutoBaselines baselines(baselines_dir(a.baselines_dir));
  MatrixBuildResult res =
      build_matrix(paths, baselines, a.min_nodes, a.jobs, rack_label_from_flag(a.rack_label));
  for (const auto& u : res.unreadable) print_line(stderr, "gpuqual: left out (unreadable): " + u);
  const Matrix& m = res.matrix;
  write_file_atomic(a.output, a.output.ends_with(".json") ? matrix_to_json(m) : matrix_to_yaml(m));
  if (!a.markdown.empty()) write_file_atomic(a.markdown, matrix_to_markdown(m));
  if (!a.html.empty()) write_file_atomic(a.html, html::render_matrix_page(m));
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& r : m.rows) {
    ++counts[static_cast<int>(r.state)];
    print_line(stdout, fmt::format("{} {}: {}", r.hardware_class, to_string(r.state), r.why));
  }
  std::printf(
      "gpuqual matrix build: wrote %s: %zu rows from %zu records (%zu known-good, %zu known-bad, %zu mixed, "
      "%zu "
      "unqualified; %zu unreadable)\n",
      a.output.c_str(), m.rows.size(), m.records, counts[0], counts[1], counts[2], counts[3], m.unreadable);
  return kExitPass;
}

std::string today_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

int run_check(const MatrixArgs& a) {
  const Target target = load_target(a.target);
  std::unique_ptr<Matrix> matrix;
  if (!a.matrix.empty()) matrix = std::make_unique<Matrix>(load_matrix(a.matrix));
  const PlatformRules rules = load_platform_rules(baselines_dir(a.baselines_dir));
  const std::string as_of = a.as_of.empty() ? today_utc() : a.as_of;
  std::vector<std::string> classes;
  if (!a.class_slug.empty()) classes.push_back(a.class_slug);
  const MatrixCheck c = check_target(target, matrix.get(), rules, classes, as_of);
  for (const auto& cl : c.classes) print_line(stdout, cl.line);
  const char* word = c.exit_code == kExitPass
                         ? "every class is known-good on the target and no rule is broken"
                     : c.exit_code == kExitFail ? "a rule is broken or a class is known-bad on the target"
                                                : "a class has never qualified the target";
  std::printf("gpuqual matrix check: %s (rules as of %s)\n", word, as_of.c_str());
  return c.exit_code;
}

int run_rollback(const MatrixArgs& a) {
  const Matrix m = load_matrix(a.matrix);
  const auto rb = rollback_for(m, a.class_slug);
  if (!rb || rb->target.classes.begin()->second.empty()) {
    print_line(
        stderr,
        fmt::format("gpuqual matrix rollback: class {} has no known-good row in {} whose target checks "
                    "known-good: there is no tested rollback path",
                    a.class_slug, a.matrix));
    return kExitInconclusive;
  }
  const std::string yaml = target_to_yaml(rb->target, rb->comment);
  (void)parse_target_yaml(yaml, "(rollback target)");  // never print a target the loader refuses
  if (a.output.empty() || a.output == "-") {
    std::fputs(yaml.c_str(), stdout);
  } else {
    write_file_atomic(a.output, yaml);
    std::fprintf(stderr, "gpuqual matrix rollback: wrote %s\n", a.output.c_str());
  }
  return kExitPass;
}

void add_baselines_dir(CLI::App* cmd, std::string& dir, const char* what) {
  cmd->add_option("--baselines-dir", dir, what)->type_name("DIR");
}

}  // namespace

void add_matrix_command(CLI::App& app, CommandAction& selected) {
  CLI::App* group = app.add_subcommand(
      "matrix",
      "The known-good compatibility matrix per hardware class: build it from records, check a target stack "
      "against it and the shipped rules, print the rollback target");
  group->require_subcommand(1);

  auto build = std::make_shared<MatrixArgs>();
  CLI::App* b = group->add_subcommand("build",
                                      "Judge records as compare --baseline auto does and group them by class "
                                      "and stack: known-good, known-bad, "
                                      "mixed or unqualified per row");
  b->add_option("RECORD", build->records, "Run records, or directories of *.json run records")->required();
  b->add_option("--output,-o", build->output,
                "Matrix to write (gpuqual.matrix/v1; YAML, or JSON for a .json name)")
      ->type_name("FILE")
      ->capture_default_str();
  b->add_option("--markdown", build->markdown, "Also write the matrix as a Markdown table")
      ->type_name("FILE");
  b->add_option("--html", build->html, "Also write the matrix as a self-contained HTML page")
      ->type_name("FILE");
  b->add_option("--min-nodes", build->min_nodes, "Distinct passing nodes a row needs to be known-good")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  b->add_option("--rack-label", build->rack_label,
                "The node label (read from each record) that names a node's rack: a rack's nodes count "
                "toward --min-nodes only when the whole rack passed; none: no racks")
      ->type_name("LABEL|none")
      ->capture_default_str();
  add_baselines_dir(b, build->baselines_dir, "Where the class baselines are (as compare --baseline auto)");
  b->add_option("--jobs", build->jobs, "Threads that read and judge records (default: one per CPU)")
      ->check(CLI::Range(1u, 256u));
  b->callback([build, &selected] { selected = [build] { return run_build(*build); }; });

  auto check = std::make_shared<MatrixArgs>();
  CLI::App* c = group->add_subcommand(
      "check",
      "Is the target stack known-good, known-bad or never qualified for each class, and does it break a "
      "shipped rule (CUDA vs driver, driver branch vs architecture and end of life, GPU Operator vs "
      "Kubernetes)?");
  c->add_option("--target", check->target, "gpuqual.target/v1 YAML: the stack to check")
      ->required()
      ->type_name("FILE");
  c->add_option("--matrix", check->matrix, "The matrix (gpuqual matrix build)")
      ->type_name("FILE")
      ->capture_default_str();
  add_class_option(c, check->class_slug,
                   "Check only this class (default: every class of the matrix and the target)");
  add_baselines_dir(c, check->baselines_dir,
                    "Where the rule tables are (cuda-compat.yaml, driver-branches.yaml, gpu-operator.yaml)");
  c->add_option("--as-of", check->as_of, "Judge end of life on this date, YYYY-MM-DD (default: today, UTC)")
      ->type_name("DATE")
      ->check(CLI::Validator(
          [](const std::string& d) {
            return is_calendar_date(d) ? std::string() : "\"" + d + "\" is not a date YYYY-MM-DD";
          },
          "DATE"));
  c->callback([check, &selected] { selected = [check] { return run_check(*check); }; });

  auto rollback = std::make_shared<MatrixArgs>();
  rollback->output.clear();
  CLI::App* r = group->add_subcommand(
      "rollback",
      "Print the newest known-good stack of a class as a gpuqual.target/v1 file: the tested rollback path");
  add_class_option(r, rollback->class_slug, "The hardware class to roll back")->required();
  r->add_option("--matrix", rollback->matrix, "The matrix (gpuqual matrix build)")
      ->type_name("FILE")
      ->capture_default_str();
  r->add_option("--output,-o", rollback->output, "Write the target here instead of stdout")
      ->type_name("FILE");
  r->callback([rollback, &selected] { selected = [rollback] { return run_rollback(*rollback); }; });
}

}  // namespace gpuqual
