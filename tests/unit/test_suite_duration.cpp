#include <gtest/gtest.h>

#include "suites/suite_duration.hpp"

namespace gpuqual {
namespace {

TEST(Duration, Parses) {
  EXPECT_EQ(parse_duration_s("90"), 90);
  EXPECT_EQ(parse_duration_s("90s"), 90);
  EXPECT_EQ(parse_duration_s("15m"), 900);
  EXPECT_EQ(parse_duration_s("2h"), 7200);
  EXPECT_EQ(parse_duration_s("1h30m"), 5400);
  EXPECT_EQ(parse_duration_s("1.5h"), 5400);
  EXPECT_EQ(parse_duration_s("1d"), 86400);
  EXPECT_EQ(parse_duration_s("0.5s"), 0.5);
}

TEST(Duration, Rejects) {
  for (const char* bad : {"", "h", "-5", "+5", "2x", "1h30", "1 h", "soon", "inf", "nan", "400d"}) {
    EXPECT_FALSE(parse_duration_s(bad)) << bad;
  }
}

TEST(Duration, Formats) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(0.4), "0.4s");
  EXPECT_EQ(format_duration(45), "45s");
  EXPECT_EQ(format_duration(90), "1m30s");
  EXPECT_EQ(format_duration(120), "2m");
  EXPECT_EQ(format_duration(7200), "2h");
  EXPECT_EQ(format_duration(7500), "2h05m");
  EXPECT_EQ(format_duration(93600), "1d2h");
  EXPECT_EQ(format_duration(-3), "0s");
}

}  // namespace
}  // namespace gpuqual
