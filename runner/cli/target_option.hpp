#pragma once
// `--target FILE`, the same on run, compare, diff and gate: the stack the node must be on
// (`gpuqual.target/v1`, docs/target.md). A bad file is an input error (exit 3) before anything
// is judged.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "core/verdict/target.hpp"

namespace gpuqual {

inline CLI::Option* add_target_option(CLI::App* cmd, std::string& path) {
  return cmd
      ->add_option(
          "--target", path,
          "gpuqual.target/v1 YAML: expected driver, CUDA driver, kernel, VBIOS, ... versions; a node off "
          "target fails (stack.off_target)")
      ->type_name("FILE");
}

// Null when the flag was not given.
inline std::unique_ptr<Target> load_target_flag(const std::string& path) {
  if (path.empty()) return nullptr;
  return std::make_unique<Target>(load_target(path));
}

}  // namespace gpuqual
