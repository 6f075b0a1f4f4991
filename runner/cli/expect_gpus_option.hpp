#pragma once
// `--expect-gpus N`, the same on run, compare and gate: how many GPUs the node must have. One
// source of the expected count among the baseline's gpu_count, the node's labels and capacity and
// the PCI bus: the largest wins (core/verdict/expected_gpus.hpp); fewer GPUs in the record is
// `gpu.missing` (fail).
#include <CLI/CLI.hpp>

#include <optional>

namespace gpuqual {

// `value` stays 0 when the flag is not given.
inline CLI::Option* add_expect_gpus_option(CLI::App* cmd, int& value) {
  return cmd
      ->add_option("--expect-gpus", value,
                   "GPUs the node must have; fewer is a fail (the largest of this, the baseline's gpu_count, "
                   "the node's nvidia.com/gpu labels and capacity and the PCI bus; none: inconclusive)")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
}

inline std::optional<int> expect_gpus_value(int value) {
  return value > 0 ? std::optional<int>(value) : std::nullopt;
}

}  // namespace gpuqual
