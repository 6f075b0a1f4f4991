#pragma once
// The `stack` check's parameters and its run, shared by the check (suites/stack_check.cpp) and
// `gpuqual probe stack` (runner/commands/probe_stack.cpp), so both judge the same way.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/record/record.hpp"
#include "core/rules/stack_tree.hpp"

namespace gpuqual {

struct StackCheckParams {
  std::string root = "/";
  std::string handler = "nvidia";
};

// Reads `root` and `handler` from the suite's params, every key checked (InputError).
StackCheckParams read_stack_check_params(const nlohmann::json& params);

// Reads the tree and judges it. Throws InputError when the root is not a directory. `read_back`,
// when given, receives what was read.
CheckResult run_stack_check(const StackCheckParams& params, HostStack* read_back = nullptr);

}  // namespace gpuqual
