// Display columns of UTF-8 text, wrapping and cutting by them, and the output width (docs/output-formats.md,
// "Width": tables fit the terminal; width counts columns, not bytes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "core/base/text_width.hpp"

namespace gpuqual {
namespace {

TEST(DisplayWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(display_width("gemm"), 4u);
  EXPECT_EQ(display_width("Grüße"), 5u);         // 7 bytes
  EXPECT_EQ(display_width("\u65e5\u672c"), 4u);  // two wide CJK characters, 6 bytes
  EXPECT_EQ(display_width("e\u0301"), 1u);       // a combining accent takes no column
  EXPECT_EQ(display_width("\xff\xfe"), 2u);      // not UTF-8: a column a byte
  EXPECT_EQ(display_width("\u2026"), 1u);
}

TEST(DisplayWidth, PrefixStopsAtACodePointThatWouldNotFit) {
  EXPECT_EQ(prefix_of_width("ab\u65e5c", 3), "ab");  // the wide one would take columns 3-4
  EXPECT_EQ(prefix_of_width("ab\u65e5c", 4), "ab\u65e5");
  EXPECT_EQ(prefix_of_width("Grüße", 3), "Grü");  // never half a code point
}

TEST(DisplayWidth, WrapsAtBlanksAndSplitsAWordLongerThanALine) {
  EXPECT_THAT(wrap_to_width("one two three", 7), ::testing::ElementsAre("one two", "three"));
  EXPECT_THAT(wrap_to_width("abcdefghij", 4), ::testing::ElementsAre("abcd", "efgh", "ij"));
  EXPECT_THAT(wrap_to_width("", 4), ::testing::ElementsAre(""));
  EXPECT_THAT(wrap_to_width("a  b", 10), ::testing::ElementsAre("a b"));
  // A narrower width for the lines after the first.
  EXPECT_THAT(wrap_to_width("aa bb cc dd", 5, 2), ::testing::ElementsAre("aa bb", "cc", "dd"));
  for (const auto& line : wrap_to_width("\u65e5\u672c\u8a9e\u306e\u6587\u7ae0 x", 5))
    EXPECT_LE(display_width(line), 5u) << line;
}

TEST(DisplayWidth, ShortenEndsWithAnEllipsisOnlyWhenCut) {
  EXPECT_EQ(shorten_to_width("short", 10), "short");
  EXPECT_EQ(shorten_to_width("a long reason", 7), "a long\u2026");
  EXPECT_EQ(display_width(shorten_to_width("\u65e5\u672c\u8a9e\u306e\u6587", 6)), 5u);
}

TEST(OutputWidth, ColumnsElseTerminalElseHundred) {
  const char* saved = std::getenv("COLUMNS");
  const std::string keep = saved ? saved : "";
  setenv("COLUMNS", "120", 1);
  EXPECT_EQ(output_width(-1), 120u);
  setenv("COLUMNS", "12", 1);
  EXPECT_EQ(output_width(-1), kMinOutputWidth);  // narrower than a table can be laid out in
  setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(output_width(-1), kDefaultOutputWidth);  // not a number: not a width; -1 is no terminal
  unsetenv("COLUMNS");
  EXPECT_EQ(output_width(-1), kDefaultOutputWidth);
  if (saved) setenv("COLUMNS", keep.c_str(), 1);
}

}  // namespace
}  // namespace gpuqual
