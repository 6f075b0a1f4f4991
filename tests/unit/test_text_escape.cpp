// Control characters from records never reach the terminal or a Markdown report raw
// (core/text_escape.hpp): unit cases, and an ESC in a real record's hostname through the CLI.
#include "core/text_escape.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "runner/run/progress.hpp"

namespace {

using gpuqual::escape_controls;

TEST(EscapeControls, MakesControlsVisibleAndLeavesTextAlone) {
  EXPECT_EQ(escape_controls("node-1"), "node-1");
  EXPECT_EQ(escape_controls("a\x1b[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(escape_controls("bell\x07 del\x7f"), "bell\\x07 del\\x7f");
  EXPECT_EQ(escape_controls("two\nlines"), "two\nlines");
  EXPECT_EQ(escape_controls("two\nlines", false), "two\\x0alines");
  EXPECT_EQ(escape_controls("cr\rx"), "cr\\x0dx");
  EXPECT_EQ(escape_controls("csi\xc2\x9b"
                            "2J"),
            "csi\\u009b2J");                                                       // C1 CSI as UTF-8
  EXPECT_EQ(escape_controls("H200 \xc3\xa9t\xc3\xa9"), "H200 \xc3\xa9t\xc3\xa9");  // UTF-8 text stays
}

TEST(EscapeControls, ProgressLinesShowNodeStringsEscaped) {
  // The run's progress (stderr) carries the hostname and the checks' messages.
  for (const bool tty : {false, true}) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
      gpuqual::ProgressDisplay d(f, tty, gpuqual::Verbosity::normal);
      d.info("suite canary on evil\x1b]0;owned\x07node");
      d.warning("container said \x1b[2J");
    }
    std::rewind(f);
    std::string text;
    for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
    std::fclose(f);
    EXPECT_NE(text.find("evil\\x1b]0;owned\\x07node"), std::string::npos) << text;
    EXPECT_NE(text.find("container said \\x1b[2J"), std::string::npos) << text;
    if (!tty) {
      EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;  // on a terminal, its own \r\033[K aside
    }
  }
}

class EscapeCli : public gpuqual::testing::ScratchDirTest {
 protected:
  EscapeCli() : ScratchDirTest("escape") {}
};

TEST_F(EscapeCli, AnEscInAHostnameIsShownNotObeyed) {
  const std::string data = GPUQUAL_TEST_DATA;
  std::ifstream in(data + "/records/synthetic-healthy.json");
  nlohmann::json rec = nlohmann::json::parse(in);
  rec["node"]["hostname"] = "evil\x1b]0;owned\x07\x1b[2Jnode";
  rec["node"]["k8s_node_name"] = "evil\x1b]0;owned\x07\x1b[2Jnode";  // gate names a node by it
  const auto path = scratch_ / "evil.json";
  std::ofstream(path) << rec.dump(1);
  const auto md = scratch_ / "r.md";
  using gpuqual::testing::shell_quote;
  const std::string baseline = " --baselines-dir " + shell_quote(data + "/baselines");
  for (const std::string& cmd :
       {"compare " + shell_quote(path.string()) + baseline + " --markdown " + shell_quote(md.string()),
        "gate " + shell_quote(path.string()) + baseline,
        "diff " + shell_quote(path.string()) + " " + shell_quote(path.string())}) {
    const auto r = gpuqual::testing::run_cli(cmd, scratch_);
    EXPECT_GE(r.code, 0) << cmd;
    EXPECT_LE(r.code, 2) << cmd << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << cmd;
    EXPECT_NE(r.out.find("evil\\x1b]0;owned\\x07\\x1b[2Jnode"), std::string::npos) << cmd << "\n" << r.out;
  }
  const std::string text = gpuqual::testing::read_text(md);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("evil\\x1b"), std::string::npos) << text;
}

}  // namespace
