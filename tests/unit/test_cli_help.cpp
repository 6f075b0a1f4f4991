// The CLI as people type it (runner/cli/cli.cpp, runner/cli/help_format.cpp): an unknown command is
// named with the list of commands; `gpuqual help [COMMAND]`; every command's --help is wrapped
// at 100 columns, shows defaults in words, and ends with its exit codes and an example.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli_helpers.hpp"
#include "runner/cli/help_format.hpp"

namespace {

using gpuqual::testing::run_cli;

class CliHelp : public gpuqual::testing::ScratchDirTest {
 protected:
  CliHelp() : ScratchDirTest("cli-help") {}
};

const std::vector<std::string> kCommands = {"",
                                            "run",
                                            "list",
                                            "compare",
                                            "inventory",
                                            "diff",
                                            "gate",
                                            "observe",
                                            "node-condition",
                                            "baseline build",
                                            "probe",
                                            "probe container",
                                            "probe telemetry",
                                            "probe cleanup",
                                            "probe stack",
                                            "nccl",
                                            "report"};

}  // namespace

TEST_F(CliHelp, UnknownCommandIsNamedWithTheList) {
  const auto r = run_cli("frobnicate", scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("unknown command \"frobnicate\""), std::string::npos) << r.err;
  for (const char* c : {"run", "compare", "diff", "gate", "baseline", "probe", "report"}) {
    EXPECT_NE(r.err.find(c), std::string::npos) << c << " missing from: " << r.err;
  }
  EXPECT_EQ(r.err.find("__check"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(CliHelp, UnknownNestedCommandNamesItsParent) {
  const auto r = run_cli("probe frobnicate", scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("unknown command \"probe frobnicate\"; the commands of probe are: container, "
                       "telemetry, storage, network, cleanup"),
            std::string::npos)
      << r.err;
}

TEST_F(CliHelp, NoCommandListsThem) {
  const auto r = run_cli("", scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("gpuqual: error: a command is required; the commands are: run, list, compare"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(CliHelp, BadFlagsAreOneLineNamingTheCommand) {
  const auto r = run_cli("compare x.json --no-such-flag", scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("gpuqual compare: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(gpuqual help compare)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const auto nested = run_cli("probe container", scratch_);  // --image is required
  EXPECT_EQ(nested.code, 3);
  EXPECT_NE(nested.err.find("gpuqual probe container: error: "), std::string::npos) << nested.err;
  EXPECT_NE(nested.err.find("--image"), std::string::npos) << nested.err;
}

TEST_F(CliHelp, HelpCommandShowsTheCommandsHelp) {
  const auto top = run_cli("help", scratch_);
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_NE(top.out.find("Usage: gpuqual"), std::string::npos) << top.out;
  const auto cmp = run_cli("help compare", scratch_);
  EXPECT_EQ(cmp.code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("Usage: gpuqual compare"), std::string::npos) << cmp.out;
  EXPECT_EQ(cmp.out, run_cli("compare --help", scratch_).out);
  const auto nested = run_cli("help probe container", scratch_);
  EXPECT_EQ(nested.code, 0) << nested.err;
  EXPECT_NE(nested.out.find("Usage: gpuqual probe container"), std::string::npos) << nested.out;
  EXPECT_EQ(run_cli("help frobnicate", scratch_).code, 3);
}

TEST_F(CliHelp, EveryHelpIsWrappedWithoutLibraryLeftoversAndEndsWithExitCodesAndExample) {
  for (const auto& cmd : kCommands) {
    const auto r = run_cli(cmd + " --help", scratch_);
    ASSERT_EQ(r.code, 0) << cmd << ": " << r.err;
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
      EXPECT_LE(line.size(), gpuqual::kHelpWidth) << cmd << ": " << line;
      EXPECT_EQ(line.find("Excludes:"), std::string::npos) << cmd << ": " << line;
      EXPECT_EQ(line.find("Needs:"), std::string::npos) << cmd << ": " << line;
      EXPECT_EQ(line.find("TEXT:"), std::string::npos) << cmd << ": " << line;
      EXPECT_EQ(line.find(":{"), std::string::npos) << cmd << ": " << line;
      EXPECT_EQ(line.find("REQUIRED"), std::string::npos) << cmd << ": " << line;
    }
    EXPECT_NE(r.out.find("Exit codes:"), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("Example: "), std::string::npos) << cmd << "\n" << r.out;
  }
}

TEST_F(CliHelp, DefaultsAreShown) {
  const auto r = run_cli("probe container --help", scratch_);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* opt : {"--timeout", "--gpus", "--expect-exit"}) {
    const auto at = r.out.find(opt);
    ASSERT_NE(at, std::string::npos) << opt;
    const auto next = r.out.find("\n  -", at);
    EXPECT_NE(r.out.substr(at, next - at).find("default: "), std::string::npos)
        << r.out.substr(at, next - at);
  }
  const auto run = run_cli("run --help", scratch_);
  EXPECT_NE(run.out.find("progress messages (not with --quiet)"), std::string::npos) << run.out;
}

TEST(WrapText, WrapsAtTheWidthAndIndentsContinuations) {
  const std::string w = gpuqual::wrap_text("aaaa bbbb cccc dddd", 10, 2);
  EXPECT_EQ(w, "aaaa bbbb\n  cccc\n  dddd");
  EXPECT_EQ(gpuqual::wrap_text("one\ntwo", 80, 4), "one\n    two");
}
