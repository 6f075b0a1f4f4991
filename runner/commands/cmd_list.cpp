// `gpuqual list`: the checks this binary has (and the project's checks it was built without),
// and the suites it can run, one line each.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "runner/cli/command.hpp"
#include "runner/run/run_plan.hpp"
#include "suites/check.hpp"
#include "suites/check_catalog.hpp"
#include "suites/suite.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {

namespace {

std::string suite_line(const Suite& s) {
  std::string names;
  for (const auto& c : s.checks) names += (names.empty() ? "" : ",") + c.check;
  std::string budget = s.budget_s ? "<= " + format_duration(*s.budget_s) : "no budget";
  if (s.takes_duration)
    budget += fmt::format(" (--duration, default {})", format_duration(s.duration_s.value_or(0)));
  return fmt::format("  {:<10} {:<34} {}: {}", s.name, budget, s.description, names);
}

int run_list(const std::string& dir_flag) {
  fmt::print("checks:\n");
  for (const CheckInfo* info : CheckRegistry::instance().all(true)) {
    fmt::print("  {:<16} {}{}\n", info->name, info->test_only ? "[test-only] " : "", info->description);
  }
  for (const auto& e : check_catalog()) {
    if (!CheckRegistry::instance().find(std::string(e.name))) {
      fmt::print("  {:<16} [not built into this gpuqual] {}\n", e.name, e.description);
    }
  }
  const std::string dir = suites_dir(dir_flag);
  fmt::print("suites ({}):\n", dir);
  int rc = kExitPass;
  for (const auto& file : suite_files(dir)) {
    try {
      fmt::print("{}\n", suite_line(load_suite(file)));
    } catch (const InputError& e) {
      // Show the broken one and keep listing; the exit code says something is wrong.
      fmt::print("  {:<10} INVALID: {}\n", std::filesystem::path(file).stem().string(), e.what());
      rc = kExitUsage;
    }
  }
  return rc;
}

}  // namespace

void add_list_command(CLI::App& app, CommandAction& selected) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "List the checks and suites, one line each");
  cmd->add_option("--suites-dir", *dir, "Where the suites are (default as for gpuqual run)")
      ->type_name("DIR");
  cmd->callback([dir, &selected] { selected = [dir] { return run_list(*dir); }; });
}

}  // namespace gpuqual
