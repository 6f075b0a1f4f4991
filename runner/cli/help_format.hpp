#pragma once
// How every `--help` looks (README "Quick start"): wrapped at 100 columns; each option's
// type, default, choices, range and exclusions said in words in its description (CLI11 jams
// them into the option column: "TEXT:{a,b}", "=2%", "Excludes: --verbose"); and a footer with
// the command's exit codes and an example. Set once on the app, inherited by every subcommand.
#include <CLI/CLI.hpp>
#include <string>

namespace gpuqual {

inline constexpr std::size_t kHelpWidth = 100;

// Word-wraps `text` to `width` columns, keeping its own line breaks; continuation lines (and
// every line after the first) start with `indent` spaces.
std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent,
                      std::size_t first_indent = 0);

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(30); }
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
};

// Installs HelpFormatter on `app` (subcommands added later inherit it), and, over the whole
// tree: captures each option's default for display, and sets each command's footer from the
// table in help_format.cpp. Call after every subcommand has been added.
void finish_help(CLI::App& app);

}  // namespace gpuqual
