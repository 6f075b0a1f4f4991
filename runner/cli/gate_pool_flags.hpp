#pragma once
// The pool rules' flags (--max-failed, --expect-nodes, --pool-allowed-drop, --confidence, and
// time: --max-age, --node-file, --consecutive; racks: --rack-label), the same on `gpuqual gate` and `gpuqual
// report
// --gate`, so a report shows the verdict the pipeline's gate gave when it is given the same flags.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/judge/gate.hpp"
#include "runner/cli/freshness_options.hpp"

namespace gpuqual {

struct GatePoolFlags {
  std::string max_failed = "0";
  int expect_nodes = 0;
  std::string pool_allowed_drop = "2%";
  std::string confidence = "0.95";
  FreshnessFlags freshness;  // --max-age, --node-file
  int consecutive = 1;
  std::string rack_label = kCliqueLabel;  // --rack-label; "none": no racks
};

// Returns the options added, so a command can tell whether any was given.
std::vector<CLI::Option*> add_gate_pool_options(CLI::App* cmd, GatePoolFlags& flags);

// The validated flags as the options core/judge/gate.hpp judges with.
GateOptions gate_options_from(const GatePoolFlags& flags, bool strict);

}  // namespace gpuqual
