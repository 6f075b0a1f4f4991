#pragma once
// How a subcommand plugs into the CLI: each `cmd_*.cpp` file adds its subcommand to the CLI11
// app and, when the user selects it, stores the action to run. `cli_main` runs the action and
// maps exceptions to exit codes (InputError → 3), so commands only return their verdict code.
#include <CLI/CLI.hpp>
#include <functional>

namespace gpuqual {

using CommandAction = std::function<int()>;

// Each adder is defined in its own cmd_<name>.cpp and listed once in cli.cpp.
// (adders are declared here as the commands land)
void add_run_command(CLI::App& app, CommandAction& selected);
void add_list_command(CLI::App& app, CommandAction& selected);
void add_check_child_command(CLI::App& app, CommandAction& selected);
void add_compare_command(CLI::App& app, CommandAction& selected);
void add_inventory_command(CLI::App& app, CommandAction& selected);
void add_diff_command(CLI::App& app, CommandAction& selected);
void add_gate_command(CLI::App& app, CommandAction& selected);
void add_baseline_command(CLI::App& app, CommandAction& selected);
void add_probe_command(CLI::App& app, CommandAction& selected);
void add_nccl_command(CLI::App& app, CommandAction& selected);
void add_report_command(CLI::App& app, CommandAction& selected);
void add_matrix_command(CLI::App& app, CommandAction& selected);
void add_plan_command(CLI::App& app, CommandAction& selected);
void add_revalidate_command(CLI::App& app, CommandAction& selected);
void add_observe_command(CLI::App& app, CommandAction& selected);
void add_node_condition_command(CLI::App& app, CommandAction& selected);

}  // namespace gpuqual
