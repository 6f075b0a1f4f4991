#include "runner/cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "core/exit_code.hpp"
#include "core/input_error.hpp"
#include "core/version.hpp"
#include "runner/command.hpp"

namespace gpuqual {

namespace {

void configure_app(CLI::App& app, CommandAction& selected) {
  app.description(
      "gpuqual qualifies GPU nodes before and after infrastructure upgrades: it measures, records\n"
      "one JSON run record, and judges it against a baseline. Exit codes of every judging command:\n"
      "  0 pass   1 fail   2 inconclusive (something could not be measured or judged)   3 usage or input error");
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
  add_nccl_command(app, selected);   // multi-node all-reduce under mpirun
  add_report_command(app, selected);  // HTML report of compare/diff/gate
}

}  // namespace

int cli_main(int argc, char** argv) {
  CommandAction selected;
  CLI::App app;
  configure_app(app, selected);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // prints help, exit 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the CLI11 message and the usage hint to stderr
    return kExitUsage;
  }
  if (!selected) return kExitUsage;
  try {
    return selected();
  } catch (const InputError& e) {
    std::fprintf(stderr, "gpuqual: error: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    // Anything else is the harness failing, not the node: inconclusive, never pass.
    std::fprintf(stderr, "gpuqual: internal error: %s\n", e.what());
    return kExitInconclusive;
  }
}

}  // namespace gpuqual
