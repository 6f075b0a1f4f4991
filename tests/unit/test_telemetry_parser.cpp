// The Prometheus text parser on the recorded dcgm-exporter scrape and on format corner cases.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "probes/telemetry/prometheus_text.hpp"

using gpuqual::probes::parse_prometheus_text;
using gpuqual::probes::PromParseError;

namespace {

std::string read(const std::string& name) {
  std::ifstream f(std::string(GPUQUAL_TEST_DATA) + "/telemetry/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int error_line(const std::string& text) {
  try {
    parse_prometheus_text(text);
  } catch (const PromParseError& e) {
    return e.line();
  }
  return 0;
}

}  // namespace

TEST(TelemetryParser, ParsesTheRecordedDcgmExporterScrape) {
  const auto doc = parse_prometheus_text(read("dcgm-exporter-sample.prom"));
  // 27 families × 2 GPUs, one HELP and one TYPE per family.
  EXPECT_EQ(doc.samples.size(), 54u);
  EXPECT_EQ(doc.types.size(), 27u);
  EXPECT_EQ(doc.help.size(), 27u);
  EXPECT_EQ(doc.types.at("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), "counter");
  EXPECT_EQ(doc.types.at("DCGM_FI_DEV_GPU_TEMP"), "gauge");
  EXPECT_EQ(doc.help.at("DCGM_FI_DEV_POWER_USAGE"), "Power draw (in W).");

  const auto& first = doc.samples.front();
  EXPECT_EQ(first.name, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(first.line, 3);
  ASSERT_NE(first.label("UUID"), nullptr);
  EXPECT_EQ(*first.label("UUID"), "GPU-3f9c2a71-5d4e-8b06-c1a2-7e94d0b5a618");
  EXPECT_EQ(*first.label("modelName"), "NVIDIA H200");
  EXPECT_EQ(*first.label("pod_uid"), "");  // an empty value is a value
  EXPECT_EQ(first.label("nonexistent"), nullptr);
  EXPECT_DOUBLE_EQ(first.value, 1980);
  EXPECT_FALSE(first.timestamp_ms);
  // Label order is kept as written.
  EXPECT_EQ(first.labels[0].first, "gpu");
  EXPECT_EQ(first.labels[1].first, "UUID");

  std::set<std::string> uuids;
  double power1 = -1, energy0 = -1;
  for (const auto& s : doc.samples) {
    uuids.insert(*s.label("UUID"));
    if (s.name == "DCGM_FI_DEV_POWER_USAGE" && *s.label("gpu") == "1") power1 = s.value;
    if (s.name == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" && *s.label("gpu") == "0") energy0 = s.value;
    if (s.name == "DCGM_FI_DEV_XID_ERRORS") {
      EXPECT_EQ(*s.label("err_msg"), "No Error");
    }
  }
  EXPECT_EQ(uuids.size(), 2u);
  EXPECT_DOUBLE_EQ(power1, 121.904);
  EXPECT_DOUBLE_EQ(energy0, 183472996511.0);
}

TEST(TelemetryParser, UnescapesLabelValuesAndHelp) {
  const auto doc = parse_prometheus_text(read("escapes.prom"));
  ASSERT_EQ(doc.samples.size(), 6u);
  const auto& s = doc.samples[0];
  EXPECT_EQ(*s.label("path"), "C:\\dir\\file");
  EXPECT_EQ(*s.label("quote"), "say \"hi\"");
  EXPECT_EQ(*s.label("nl"), "a\nb");
  EXPECT_EQ(s.labels.size(), 3u);  // the trailing comma adds nothing
  EXPECT_DOUBLE_EQ(s.value, 1500);
  ASSERT_TRUE(s.timestamp_ms);
  EXPECT_EQ(*s.timestamp_ms, 1700000000000);
  EXPECT_EQ(doc.help.at("weird_metric"), "Help with a \\ backslash and a \n newline.");
  EXPECT_TRUE(std::isnan(doc.samples[1].value));
  EXPECT_TRUE(std::isinf(doc.samples[2].value) && doc.samples[2].value > 0);
  EXPECT_TRUE(std::isinf(doc.samples[3].value) && doc.samples[3].value < 0);
  EXPECT_EQ(doc.samples[4].name, "no_labels");
  EXPECT_TRUE(doc.samples[4].labels.empty());
  EXPECT_EQ(doc.samples[5].name, "spaced_metric");
  EXPECT_EQ(*doc.samples[5].label("a"), "1");
  EXPECT_DOUBLE_EQ(doc.samples[5].value, -0.25);
  EXPECT_EQ(doc.samples[5].line, 10);  // CRLF and blank lines do not shift line numbers
}

TEST(TelemetryParser, EmptyAndCommentOnlyTextHasNoSamples) {
  EXPECT_TRUE(parse_prometheus_text("").samples.empty());
  EXPECT_TRUE(parse_prometheus_text("# just a comment\n\n   \n").samples.empty());
}

TEST(TelemetryParser, RejectsMalformedLinesNamingTheLine) {
  EXPECT_EQ(error_line("ok 1\nbad{a=\"1\" 2\n"), 2);               // unclosed label set
  EXPECT_EQ(error_line("m{a=\"unterminated} 1\n"), 1);             // unterminated value
  EXPECT_EQ(error_line("m{a=\"x\\q\"} 1\n"), 1);                   // invalid escape
  EXPECT_EQ(error_line("m{a=\"1\",a=\"2\"} 1\n"), 1);              // duplicate label
  EXPECT_EQ(error_line("m{1a=\"1\"} 1\n"), 1);                     // bad label name
  EXPECT_EQ(error_line("m{a=1} 1\n"), 1);                          // unquoted value
  EXPECT_EQ(error_line("9metric 1\n"), 1);                         // bad metric name
  EXPECT_EQ(error_line("m\n"), 1);                                 // no value
  EXPECT_EQ(error_line("m{a=\"1\"}\n"), 1);                        // no value after labels
  EXPECT_EQ(error_line("m abc\n"), 1);                             // not a number
  EXPECT_EQ(error_line("m 0x10\n"), 1);                            // hex is not accepted
  EXPECT_EQ(error_line("m 1 12.5\n"), 1);                          // timestamp is an integer
  EXPECT_EQ(error_line("m 1 2 3\n"), 1);                           // trailing text
  EXPECT_EQ(error_line("m{a=\"1\"}2\n"), 1);                       // no blank before value
  EXPECT_EQ(error_line("# TYPE m bogus\n"), 1);                    // unknown type
  EXPECT_EQ(error_line("# TYPE m gauge\n# TYPE m counter\n"), 2);  // TYPE twice
  EXPECT_EQ(error_line(std::string("m 1\nn\0 2\n", 10)), 2);       // NUL byte
}

TEST(TelemetryParser, ParseErrorMessageSaysWhere) {
  try {
    parse_prometheus_text("a 1\nb 2\nc{x=\"1\" 3\n");
    FAIL() << "no error";
  } catch (const PromParseError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
}
