#pragma once
// `gpuqual probe stack`: the subcommand's adder, called by `gpuqual probe` (cmd_probe.cpp).
#include <CLI/CLI.hpp>

#include "runner/cli/command.hpp"

namespace gpuqual {

void add_stack_probe(CLI::App* probe, CommandAction& selected);

}  // namespace gpuqual
