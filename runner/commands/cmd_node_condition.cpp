// `gpuqual node-condition --exit-code N [--summary FILE] [--verdict FILE] --node FILE`, or
// `--unknown REASON MESSAGE`: the Node condition GpuQualified after a verdict, and the strategic
// merge patch that writes it (core/verdict/node_condition.hpp; docs/kubernetes.md, "The condition
// GpuQualified"). containers/bin/gpuqual-node-condition reads the Node, calls this, and sends the
// patch; the decision is made here, in C++, so that it is tested as the rest of gpuqual.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/base/text_escape.hpp"
#include "core/base/utc_time.hpp"
#include "core/verdict/node_condition.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/freshness_options.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {

namespace {

inline constexpr std::size_t kSummaryMaxBytes = 1u << 20;

struct NodeConditionArgs {
  std::string exit_code;
  std::vector<std::string> unknown;  // REASON MESSAGE
  std::string summary, verdict, node, now;
  std::size_t consecutive = 1;
  std::string print = "patch";
  std::string max_age;  // empty: no gpuqual.io/valid-until in the patch
};

// gpuqual's exit code as the pod wrote it. Anything that is not a number (an empty or torn file)
// is a harness that did not finish: 2, inconclusive.
int parse_exit_code(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return 2;
  return std::stoi(text);
}

void require_file(const std::string& path, const char* option) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, "", fmt::format("{}: no such file", option));
}

std::string summary_line(const std::string& path) {
  if (path.empty()) return "";
  require_file(path, "--summary");
  if (std::filesystem::is_regular_file(path) && std::filesystem::file_size(path) == 0) return "";
  const std::string text = read_text_file(path, kSummaryMaxBytes);
  return text.substr(0, text.find('\n'));
}

// The verdict, when the file holds one. gpuqual-k8s-run writes whatever `compare --format json`
// printed: after an error that is no JSON object, and then the exit code alone decides (the
// node still gets its condition), with a note on stderr.
std::optional<nlohmann::json> read_verdict(const std::string& path) {
  if (path.empty()) return std::nullopt;
  require_file(path, "--verdict");
  try {
    nlohmann::json v = read_json_file(path);
    if (v.is_object()) return v;
    print_line(stderr,
               fmt::format("gpuqual node-condition: {}: not a JSON object; the exit code decides", path));
  } catch (const InputError& e) {
    print_line(stderr, fmt::format("gpuqual node-condition: {}; the exit code decides", e.what()));
  }
  return std::nullopt;
}

// The Node, from a file or (-) stdin: the helper pipes what the API server answered, its container
// having no writable file system.
NodeConditionState read_node(const std::string& path) {
  if (path != "-") return node_condition_state(read_json_file(path), path);
  const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  return node_condition_state(parse_json_text(text, "<stdin>"), "<stdin>");
}

std::string now_or_clock(const std::string& now) {
  if (now.empty()) return utc_now_rfc3339();
  if (!is_rfc3339_text(now)) throw InputError("--now", "", fmt::format("{} is not an RFC 3339 time", now));
  return now;
}

int run_node_condition(const NodeConditionArgs& a) {
  std::optional<ConditionVerdict> v;
  if (a.unknown.empty() && a.exit_code.empty())
    throw InputError("--exit-code/--unknown", "", "give gpuqual's exit code or --unknown REASON MESSAGE");
  if (!a.unknown.empty()) {
    v = unknown_condition(a.unknown.at(0), a.unknown.at(1));
  } else {
    const std::optional<nlohmann::json> verdict = read_verdict(a.verdict);
    const int rc = parse_exit_code(a.exit_code);
    v = condition_from_exit(rc, summary_line(a.summary), verdict ? &*verdict : nullptr);
  }
  if (!v) {
    print_line(stderr,
               "gpuqual node-condition: gpuqual exited 3 (usage or input error): that is about the Job, not "
               "the node; condition left as it is");
    return 0;
  }
  const std::string now = now_or_clock(a.now);
  const NodeConditionState node = read_node(a.node);
  for (const std::string& w : node.warnings) print_line(stderr, "gpuqual node-condition: warning: " + w);
  const ConditionWrite w = next_condition(*v, node, now, a.consecutive);
  nlohmann::ordered_json out = a.print == "condition" ? condition_json(w.condition) : condition_patch(w);
  if (a.print == "patch" && !a.max_age.empty()) add_valid_until(out, w, *parse_duration_s(a.max_age));
  std::fputs((out.dump() + "\n").c_str(), stdout);
  return 0;
}

}  // namespace

void add_node_condition_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<NodeConditionArgs>();
  CLI::App* cmd = app.add_subcommand(
      "node-condition",
      "The Node condition GpuQualified after a verdict (True pass, False fail, Unknown otherwise; reason "
      "the deciding finding in CamelCase), over the Node's previous condition, as the strategic merge "
      "patch of nodes/status that writes it (containers/bin/gpuqual-node-condition sends it)");
  auto* exit_code = cmd->add_option("--exit-code", args->exit_code,
                                    "gpuqual's exit code (0 True, 1 False, 3 nothing written, else Unknown)")
                        ->type_name("CODE");
  auto* unknown =
      cmd->add_option("--unknown", args->unknown,
                      "Unknown with this CamelCase reason and message (re-validation: expired, stale)")
          ->type_name("REASON MESSAGE")
          ->expected(2);
  exit_code->excludes(unknown);
  cmd->add_option("--summary", args->summary, "A file whose first line is gpuqual's summary: the message")
      ->type_name("FILE")
      ->needs(exit_code);
  cmd->add_option("--verdict", args->verdict,
                  "gpuqual's --format json verdict: the deciding finding (not a JSON object: ignored)")
      ->type_name("FILE")
      ->needs(exit_code);
  cmd->add_option("--node", args->node,
                  "The Node, JSON (GET /api/v1/nodes/NAME/status; - for stdin): its previous condition")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--now", args->now, "The time written, RFC 3339 (default: the clock)")->type_name("TIME");
  cmd->add_option("--consecutive", args->consecutive,
                  "Passing runs in a row a node whose condition is not True needs to become True")
      ->type_name("N")
      ->check(CLI::Range(0, 1000));
  add_max_age_option(cmd, args->max_age)
      ->description(
          "How long a pass qualifies the node: the patch sets gpuqual.io/valid-until (label, compact UTC, "
          "and "
          "annotation, RFC 3339) to now plus this on a True condition and removes it otherwise (e.g. 7d)");
  cmd->add_option("--print", args->print, "stdout: patch (nodes/status, strategic merge) or condition")
      ->check(CLI::IsMember({"patch", "condition"}));
  cmd->callback([args, &selected] { selected = [args] { return run_node_condition(*args); }; });
}

}  // namespace gpuqual
