// Control characters from records never reach the terminal or a Markdown report raw
// (core/base/text_escape.hpp): unit cases, every escape over the corpus of hostile strings
// (tests/data/hostile/strings.json; the formats' own parsers read the outputs in
// tests/integration/test_hostile_strings.py), and an ESC in a real record's hostname through the CLI.
#include "core/base/text_escape.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
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

// Every string of the corpus, and each byte sequence of it that is not UTF-8.
std::vector<std::string> hostile_corpus() {
  std::ifstream in(std::string(GPUQUAL_TEST_DATA) + "/hostile/strings.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<std::string> out = doc.at("text").get<std::vector<std::string>>();
  for (const auto& hex : doc.at("bytes_hex")) {
    std::string bytes;
    const std::string h = hex.get<std::string>();
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
      bytes += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
    out.push_back("bad " + bytes + " utf8");
  }
  return out;
}

// True when `s` is well-formed UTF-8 with no code point is_hidden_code_point names.
bool clean(const std::string& s, bool newline_allowed) {
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = gpuqual::utf8_sequence(s, i, cp);
    if (n == 0 || gpuqual::is_hidden_code_point(cp) || (cp == '\n' && !newline_allowed)) return false;
    i += n;
  }
  return true;
}

TEST(EscapeControls, ShowsBytesThatAreNotUtf8BidiControlsAndNoncharacters) {
  EXPECT_EQ(escape_controls("a\xff"
                            "b"),
            "a\\xffb");
  EXPECT_EQ(escape_controls("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate is not UTF-8
  EXPECT_EQ(escape_controls("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(escape_controls("\xe2\x82"), "\\xe2\\x82");           // cut short
  EXPECT_EQ(escape_controls("x\xef\xbf\xbe\xef\xbf\xbfy"), "x\\ufffe\\uffffy");
  EXPECT_EQ(escape_controls("exe\xe2\x80\xaegnp"), "exe\\u202egnp");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(escape_controls("a\xe2\x80\xa8"
                            "b"),
            "a\\u2028b");  // LINE SEPARATOR
  EXPECT_EQ(escape_controls(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(escape_controls("\xf0\x9f\x9a\x80 \xe6\x97\xa5"), "\xf0\x9f\x9a\x80 \xe6\x97\xa5");  // text stays
}

TEST(EscapeControls, EveryEscapeLeavesNoHiddenCharacterInTheCorpus) {
  const auto corpus = hostile_corpus();
  ASSERT_GT(corpus.size(), 20u);
  for (const auto& s : corpus) {
    const std::string shown = escape_controls(s);
    EXPECT_TRUE(clean(shown, true)) << shown;
    EXPECT_EQ(escape_controls(shown), shown) << "not idempotent: " << shown;
    const std::string line = gpuqual::terminal_line(s);
    EXPECT_TRUE(clean(line, false)) << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;
    EXPECT_TRUE(clean(gpuqual::escape_xml(s), false)) << gpuqual::escape_xml(s);
    EXPECT_TRUE(clean(gpuqual::escape_markdown(s), false)) << gpuqual::escape_markdown(s);
  }
}

TEST(TerminalLine, NoRecordStringStartsALine) {
  EXPECT_EQ(gpuqual::terminal_line("node-x\ngpuqual: PASS\r\tok"), "node-x gpuqual: PASS  ok");
  EXPECT_EQ(gpuqual::terminal_line("t\x1b]0;x\x07"), "t\\x1b]0;x\\x07");
}

TEST(EscapeXml, OnlyCharactersXml10AllowsAndNoMarkup) {
  EXPECT_EQ(gpuqual::escape_xml("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(gpuqual::escape_xml("two\nlines\ttab\rcr"), "two&#10;lines&#9;tab\\x0dcr");
  EXPECT_EQ(gpuqual::escape_xml("host\xef\xbf\xbe\x01"), "host\\ufffe\\x01");
  EXPECT_EQ(gpuqual::escape_xml("]]>"), "]]&gt;");
}

TEST(EscapeMarkdown, NoLinkImageMentionEmphasisOrHtml) {
  const std::string zw = "\xe2\x80\x8b";
  EXPECT_EQ(gpuqual::escape_markdown("[x](https://e.example)"),
            "\\[x\\]\\(https\\:" + zw + "\\/\\/e\\.example\\)");
  EXPECT_EQ(gpuqual::escape_markdown("![p](u)"), "\\!\\[p\\]\\(u\\)");
  EXPECT_EQ(gpuqual::escape_markdown("cc @alice"), "cc \\@" + zw + "alice");
  EXPECT_EQ(gpuqual::escape_markdown("**b** _e_"), "\\*\\*b\\*\\* \\_e\\_");
  EXPECT_EQ(gpuqual::escape_markdown("<script>"), "\\<script\\>");
  EXPECT_EQ(gpuqual::escape_markdown("see www.evil.example"), "see www" + zw + "\\.evil\\.example");
  EXPECT_EQ(gpuqual::escape_markdown("a|b\nc"), "a\\|b c");
  EXPECT_EQ(gpuqual::escape_markdown("node a1 \xc3\xa9"), "node a1 \xc3\xa9");  // letters, digits, UTF-8 stay
}

TEST(InputErrorMessage, IsOneLineWithItsControlsShown) {
  const gpuqual::InputError e("rec\x1b[2J.json", "$.node", "class 'x\ngpuqual: PASS\x07'");
  EXPECT_STREQ(e.what(), "rec\\x1b[2J.json: $.node: class 'x gpuqual: PASS\\x07'");
  EXPECT_EQ(e.file(), "rec\x1b[2J.json");  // the parts stay as given
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
  // diff judges a later run of the same node.
  rec["run_id"] = "evil-after";
  rec["started_at"] = "2026-12-01T12:00:00Z";
  rec["ended_at"] = "2026-12-01T12:05:00Z";
  const auto after = scratch_ / "evil-after.json";
  std::ofstream(after) << rec.dump(1);
  const auto md = scratch_ / "r.md";
  using gpuqual::testing::shell_quote;
  const std::string baseline = " --baselines-dir " + shell_quote(data + "/baselines");
  for (const std::string& cmd :
       {"compare " + shell_quote(path.string()) + baseline + " --markdown " + shell_quote(md.string()),
        "gate " + shell_quote(path.string()) + baseline,
        "diff " + shell_quote(path.string()) + " " + shell_quote(after.string())}) {
    // Wide enough that no table wraps the hostname (docs/output-formats.md, "Width").
    const auto r = gpuqual::testing::run_cli(cmd, scratch_, "COLUMNS=400");
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
