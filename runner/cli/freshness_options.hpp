#pragma once
// --max-age DURATION and --node-file FILE, the same on compare, diff, gate, report --gate and
// plan: whether a record still speaks for its node now (core/verdict/record_age.hpp, docs/gate.md "Time").
// Both are off unless given; the shipped manifests give --max-age (containers/k8s).
#include <CLI/CLI.hpp>

#include <string>

#include "core/verdict/record_age.hpp"

namespace gpuqual {

struct FreshnessFlags {
  std::string max_age;    // "" off; "7d", "36h"
  std::string node_file;  // "" off; a Node or NodeList JSON
};

CLI::Option* add_max_age_option(CLI::App* cmd, std::string& max_age);
CLI::Option* add_node_file_option(CLI::App* cmd, std::string& node_file);

// The flags as core/verdict/record_age.hpp judges with: now from $GPUQUAL_NOW or the clock, the Nodes
// read. A bad file or GPUQUAL_NOW is an InputError (exit 3).
Freshness freshness_from(const FreshnessFlags& flags);

}  // namespace gpuqual
