#pragma once
// `--class SLUG`, the same on every command that takes one: the slug names a baseline file
// (baselines/<slug>.yaml), so anything else is a usage error (exit 3) before the command runs.
#include <CLI/CLI.hpp>

#include <string>

#include "core/record/hardware_class.hpp"

namespace gpuqual {

inline CLI::Option* add_class_option(CLI::App* cmd, std::string& slug, const std::string& help) {
  return cmd->add_option("--class", slug, help)
      ->type_name("SLUG")
      ->check(CLI::Validator(
          [](std::string& s) {
            return is_valid_class_slug(s)
                       ? std::string()
                       : "not a class slug: 1-63 of a-z, 0-9 and '-' (e.g. h200-sxm-141gb)";
          },
          ""));
}

}  // namespace gpuqual
