// Tables and lines that fit the width (docs/output-formats.md, "Width"): the text column wraps, nothing is
// cut but a cell of more than kMaxCellLines lines, and no line is wider than the width, in display columns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/base/text_table.hpp"
#include "core/base/text_width.hpp"
#include "core/judge/common_cause.hpp"
#include "core/judge/compare_summary.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::size_t widest(const std::string& text) {
  std::size_t w = 0;
  for (const auto& l : lines_of(text)) w = std::max(w, display_width(l));
  return w;
}

// Every word of `text`, in order, whatever the line breaks: nothing was cut.
std::string words(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string w; in >> w;) out += w + " ";
  return out;
}

const std::string kLong =
    "check compat skip: gpuqual's CUDA runtime 13.0: no NVIDIA driver found: CUDA 13.0 cannot be judged (it "
    "needs "
    "driver >= 580.65.06) (NVML: libnvidia-ml.so.1 not loadable (no NVIDIA driver on this node?): "
    "libnvidia-ml.so.1: "
    "cannot open shared object file: No such file or directory)";

TEST(TextTable, FitsItsNaturalWidthOnOneLineEach) {
  std::string out;
  layout_table(out, {"CHECK", "STATUS", "REASON"}, {{"gemm", "pass", ""}, {"health", "skip", "no NVML"}}, 100,
               {2});
  EXPECT_EQ(out, "CHECK   STATUS  REASON\ngemm    pass\nhealth  skip    no NVML\n");
}

TEST(TextTable, ATextColumnTooNarrowForAPhraseGoesUnderItsRow) {
  std::string out;
  layout_table(out, {"CHECK", "GPU", "STATUS", "REASON"},
               {{"compat", "node", "skip", kLong}, {"gemm", "0", "pass", ""}}, 40, {3});
  EXPECT_LE(widest(out), 40u) << out;
  const auto lines = lines_of(out);
  EXPECT_EQ(lines[0], "CHECK   GPU   STATUS");
  EXPECT_EQ(lines[1], "compat  node  skip");
  EXPECT_EQ(lines[2].rfind("    reason: check compat skip:", 0), 0u) << out;
  EXPECT_EQ(lines.back(), "gemm    0     pass");  // an empty cell adds no line
  EXPECT_EQ(words(out).find(words("reason: " + kLong)), words("CHECK GPU STATUS compat node skip ").size())
      << out;
}

TEST(TextTable, WrapsTheTextColumnToTheWidthAndKeepsEveryWord) {
  for (std::size_t width : {60u, 80u, 100u}) {
    std::string out;
    layout_table(out, {"CHECK", "GPU", "STATUS", "REASON"}, {{"compat", "node", "skip", kLong}}, width, {3});
    EXPECT_LE(widest(out), width) << out;
    const auto lines = lines_of(out);
    ASSERT_GT(lines.size(), 2u) << out;
    // The other columns keep their place: continuation lines are blank under them, and the
    // reason column, read down, is the whole reason.
    const std::size_t at = lines[0].find("REASON");
    std::string reason;
    for (std::size_t k = 1; k < lines.size(); ++k) {
      if (k > 1) {
        EXPECT_EQ(lines[k].substr(0, at), std::string(at, ' ')) << out;
      }
      reason += lines[k].substr(at) + " ";
    }
    EXPECT_EQ(words(reason), words(kLong)) << out;
  }
}

TEST(TextTable, TwoTextColumnsShareTheWidth) {
  for (std::size_t width : {40u, 60u, 100u}) {
    std::string out;
    layout_table(out, {"FINDING", "GPU", "STATUS", "REASON", "ACTION"},
                 {{"compat.no_driver", "node", "skip", kLong, "install the driver"}}, width, {3, 4});
    EXPECT_LE(widest(out), width) << out;
  }
}

TEST(TextTable, ColumnsOtherThanTextShrinkWhenTheyMust) {
  const std::string host(90, 'n');  // a hostname no terminal line holds
  std::string out;
  layout_table(out, {"NODE", "CLASS", "VERDICT", "WORST METRICS", "RUN"},
               {{host, "h200-sxm-141gb", "fail", "hbm.triad.gbps gpu 3 -4.1%", "r-1"}}, 60, {3});
  EXPECT_LE(widest(out), 60u) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), 'n'), 90) << out;  // all of it, wrapped
}

TEST(TextTable, WideCharactersAreMeasuredInColumns) {
  std::string out;
  const std::string cjk =
      "\u65e5\u672c\u8a9e\u306e\u7406\u7531\u304c\u3053\u3053\u306b\u3042\u308a\u307e\u3059";
  layout_table(out, {"CHECK", "REASON"}, {{"\u30c1\u30a7\u30c3\u30af", cjk + " " + cjk + " " + cjk}}, 40,
               {1});
  EXPECT_LE(widest(out), 40u) << out;
  // The second column starts at the same display column on every line.
  EXPECT_EQ(lines_of(out)[0], "CHECK     REASON");
  EXPECT_EQ(display_width(lines_of(out)[1].substr(0, lines_of(out)[1].find(cjk.substr(0, 3)))), 10u) << out;
}

TEST(TextTable, AHugeCellIsCutWithANoteWhereItIsInFull) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "word" + std::to_string(i) + " ";
  std::string out;
  layout_table(out, {"CHECK", "REASON"}, {{"burnin", text}}, 60, {1});
  EXPECT_LE(lines_of(out).size(), 1 + kMaxCellLines);
  EXPECT_THAT(words(out), HasSubstr("--format json"));
  EXPECT_LE(widest(out), 60u);
}

TEST(WrapLines, ContinuationLinesAreIndentedUnderTheirLine) {
  const std::string text = "  - " + kLong + "\nshort\n";
  const std::string out = wrap_lines(text, 60);
  EXPECT_LE(widest(out), 60u) << out;
  const auto lines = lines_of(out);
  EXPECT_EQ(lines[0].rfind("  - check compat skip:", 0), 0u);
  EXPECT_EQ(lines[1].rfind("      ", 0), 0u) << out;
  EXPECT_EQ(lines.back(), "short");
  EXPECT_EQ(words(out), words(text));
  EXPECT_EQ(wrap_lines("fits\n", 60), "fits\n");
}

TEST(FitSummary, DropsOnlyTheDetailsThatRepeatASharedCause) {
  const std::string cause =
      "libnvidia-ml.so.1 not loadable (no NVIDIA driver?): cannot open shared object file";
  const SharedCauses causes = find_shared_causes({"health: " + cause, "xid: " + cause, "compat: " + cause});
  const std::string head =
      "gpuqual: INCONCLUSIVE node-a unknown: no baseline, 1 finding, 9 of 12 check results not passed";
  const std::string line = head + " (health skipped: NVML unavailable: " + cause + ")";
  EXPECT_EQ(fit_summary(line, 500, causes), line);          // it fits: whole
  EXPECT_EQ(fit_summary(line, 100, causes), head);          // the table says the cause once
  EXPECT_EQ(fit_summary(line, 100, SharedCauses{}), line);  // a detail said nowhere else stays
  // Another detail stays even when the line is still too wide; the counts are never cut.
  const std::string failed =
      "gpuqual: FAIL node-a h200: 1 of 8 metrics failed (gemm.bf16.tflops gpu 1 -7.1% < -5.0%)";
  EXPECT_EQ(fit_summary(failed + ", 1 finding (x: " + cause + ")", 60, causes), failed + ", 1 finding");
}

}  // namespace
}  // namespace gpuqual
