#include "runner/cli/cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"
#include "core/base/version.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/help_format.hpp"

namespace gpuqual {

namespace {

void configure_app(CLI::App& app, CommandAction& selected) {
  app.description(
      "gpuqual qualifies GPU nodes before and after infrastructure upgrades: it measures, records\n"
      "one JSON run record, and judges it against a baseline. Exit codes of every judging command:\n"
      "  0 pass   1 fail   2 inconclusive (something could not be measured or judged)   3 usage or input "
      "error");
  app.name("gpuqual");
  app.set_version_flag("--version", fmt::format("gpuqual {} (git {})", tool_version(), git_revision()),
                       "Print the version and the git revision this binary was built from");
  app.require_subcommand(1);
  app.fallthrough(false);
  (void)selected;  // each add_*_command(app, selected) call below registers one subcommand
  add_run_command(app, selected);
  add_list_command(app, selected);
  add_check_child_command(app, selected);  // hidden: the child side of `run`
  add_compare_command(app, selected);
  add_inventory_command(app, selected);
  add_diff_command(app, selected);
  add_gate_command(app, selected);
  add_baseline_command(app, selected);
  add_probe_command(app, selected);
  add_nccl_command(app, selected);    // multi-node all-reduce under mpirun
  add_report_command(app, selected);  // HTML report of compare/diff/gate
  add_matrix_command(app, selected);  // known-good compatibility matrix, target check, rollback
  add_plan_command(app, selected);    // rollout waves from the cluster and the verdicts
  // the nodes the re-validation CronJob qualifies again now
  add_revalidate_command(app, selected);
  // the canary pool against a control pool, from Prometheus
  add_observe_command(app, selected);
  // the Node condition GpuQualified after a verdict (containers/bin/gpuqual-node-condition)
  add_node_condition_command(app, selected);
  finish_help(app);
}

bool is_visible(const CLI::App* a) { return !a->get_group().empty(); }

// The commands of `cur`, in the order they were added, hidden ones left out.
std::string command_list(CLI::App* cur) {
  std::string out;
  for (const CLI::App* sub : cur->get_subcommands([](CLI::App*) { return true; })) {
    if (is_visible(sub)) out += (out.empty() ? "" : ", ") + sub->get_name();
  }
  return out;
}

// CLI11 answers a mistyped command with "A subcommand is required". Walk the leading words of
// argv down the command tree; the first word that names no command is reported with the list.
// Returns "" when the words are all commands (or an option or a positional comes first).
std::string unknown_command(CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty())
    return fmt::format("a command is required; the commands are: {} (gpuqual help COMMAND shows one)",
                       command_list(&app));
  CLI::App* cur = &app;
  std::string path;
  for (const std::string& word : args) {
    if (word.empty() || word[0] == '-') break;
    const auto subs = cur->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) break;
    CLI::App* found = nullptr;
    for (CLI::App* sub : subs) {
      if (sub->check_name(word)) found = sub;
    }
    if (found == nullptr) {
      const std::string where =
          path.empty() ? "the commands are" : fmt::format("the commands of {} are", path);
      return fmt::format("unknown command \"{}\"; {}: {} (gpuqual help COMMAND shows one)",
                         path.empty() ? word : path + " " + word, where, command_list(cur));
    }
    path += (path.empty() ? "" : " ") + word;
    cur = found;
  }
  return "";
}

}  // namespace

int cli_main(int argc, char** argv) {
  CommandAction selected;
  CLI::App app;
  configure_app(app, selected);
  // `gpuqual help [COMMAND...]` is `gpuqual [COMMAND...] --help`.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "help") {
    args.erase(args.begin());
    args.emplace_back("--help");
  }
  if (const std::string unknown = unknown_command(app, args); !unknown.empty()) {
    print_line(stderr, "gpuqual: error: " + unknown);
    return kExitUsage;
  }
  std::vector<char*> new_argv{argv[0]};
  for (auto& a : args) new_argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(new_argv.size()), new_argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // prints help, exit 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, naming the command whose flags were wrong and where its help is.
    std::string path;
    for (CLI::App* cur = &app; !cur->get_subcommands().empty();) {
      cur = cur->get_subcommands().front();
      path += " " + cur->get_name();
    }
    print_line(stderr, fmt::format("gpuqual{}: error: {} (gpuqual help{})", path, e.what(), path));
    return kExitUsage;
  }
  if (!selected) return kExitUsage;
  try {
    return selected();
  } catch (const InputError& e) {
    // Every command's exit-3 message, escaped once for all (core/base/text_escape.hpp: terminal_line).
    print_line(stderr, fmt::format("gpuqual: error: {}", e.what()));
    return kExitUsage;
  } catch (const std::exception& e) {
    // Anything else is the harness failing, not the node: inconclusive, never pass.
    print_line(stderr, fmt::format("gpuqual: internal error: {}", e.what()));
    return kExitInconclusive;
  }
}

}  // namespace gpuqual
