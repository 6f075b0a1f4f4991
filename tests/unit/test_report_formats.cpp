// Properties of the report formats that golden files alone do not pin down: escaping of hostile
// text, JUnit counts, Prometheus series, the verdict JSON round trip and its strict reader.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/text_table.hpp"
#include "core/verdict/verdict_json.hpp"
#include "report_fixtures.hpp"
#include "runner/reporters/reporters.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
using nlohmann::json;

namespace {

// A verdict whose every text field tries to break a format.
Verdict hostile_verdict() {
  Verdict v;
  v.outcome = Outcome::fail;
  v.exit_code = 1;
  v.hostname = "node\"a\\b\nc<&>'|";
  v.hardware_class = "h200-sxm-141gb";
  v.driver_version = "570\"x";
  v.cuda_driver_version = "12.8";
  v.summary = "gpuqual: FAIL node";
  v.reasons = {"a | b\nc <script>"};
  MetricRow m;
  m.check = "gemm";
  m.metric = "gemm.bf16.tflops";
  m.gpu = 0;
  m.unit = "TFLOP/s";
  m.expected = 771;
  m.observed = 700;
  m.delta_pct = -9.2;
  m.allowed_drop_pct = 5;
  m.status = Status::fail;
  m.reason = "slow | \"really\" <b>\x01</b>";
  v.metrics.push_back(m);
  v.checks.push_back({"gemm", 0, Status::fail, "slow & \"odd\" <x>\x02", 3.5});
  v.checks.push_back({"pcie", std::nullopt, Status::skip, "no <PCIe>", 0});
  v.checks.push_back({"hbm", 1, Status::error, "crash", 1.25});
  v.per_gpu = {{0, Status::fail}, {1, Status::error}};
  return v;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST(ReportJunit, EscapesEverythingAndCountsResults) {
  const std::string xml = render_junit(hostile_verdict());
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_EQ(xml.find('\x02'), std::string::npos);
  EXPECT_NE(xml.find("hostname=\"node&quot;a\\b&#10;c&lt;&amp;&gt;&#39;|\""), std::string::npos) << xml;
  // A control is shown as an escape (core/base/text_escape.hpp: escape_xml), as in every format.
  EXPECT_NE(xml.find("message=\"slow &amp; &quot;odd&quot; &lt;x&gt;\\x02\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"1\" time=\"4.750\""),
            std::string::npos)
      << xml;
  EXPECT_EQ(count(xml, "<testcase "), 3);
  EXPECT_EQ(count(xml, "<failure "), 1);
  EXPECT_EQ(count(xml, "<error "), 1);
  EXPECT_EQ(count(xml, "<skipped "), 1);
  EXPECT_NE(xml.find("name=\"gemm gpu 0\""), std::string::npos);
  EXPECT_NE(xml.find("name=\"pcie node\""), std::string::npos);
}

TEST(ReportJunit, GateVerdictGivesOneSuitePerNode) {
  Verdict gate;
  gate.kind = "gate";
  gate.nodes = {judge_fixture("synthetic-healthy"), judge_fixture("synthetic-slow-gpu")};
  const std::string xml = render_junit(gate);
  EXPECT_EQ(count(xml, "<testsuite "), 2);
  EXPECT_EQ(count(xml, "<failure "), 1);
}

TEST(ReportPrometheus, EscapesLabelValuesAndUsesStateSets) {
  const std::string prom = render_prometheus(hostile_verdict());
  EXPECT_NE(prom.find("node=\"node\\\"a\\\\b\\nc<&>'|\""), std::string::npos) << prom;
  EXPECT_NE(prom.find("driver=\"570\\\"x\""), std::string::npos) << prom;
  // Every line is a comment or a sample; no raw newline escaped into a label.
  std::istringstream lines(prom);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.rfind("# HELP gpuqual_", 0) == 0 || line.rfind("# TYPE gpuqual_", 0) == 0 ||
                line.rfind("gpuqual_", 0) == 0)
        << line;
  }
  // One series per possible status, exactly one of them 1.
  EXPECT_EQ(count(prom, "gpuqual_check_status{"), 15);
  EXPECT_EQ(count(prom, "gpuqual_verdict{"), 4);
  EXPECT_NE(prom.find("outcome=\"fail\"} 1\n"), std::string::npos);
  EXPECT_NE(prom.find("outcome=\"pass\"} 0\n"), std::string::npos);
  // Node-scope series carry no gpu label.
  EXPECT_NE(prom.find("check=\"pcie\",status=\"skip\"} 1\n"), std::string::npos) << prom;
  EXPECT_EQ(count(prom, "# TYPE gpuqual_check_status gauge"), 1);
}

TEST(ReportPrometheus, StackComponentsAreInfoSeriesWithEscapedValues) {
  Verdict v = hostile_verdict();
  v.stack = {{"bios.version", StackFact::read("2.19\\1 \"beta\"\nx")},
             {"board.name", StackFact::unread("/sys/class/dmi/id/board_name: Permission denied")},
             {"platform.gpu-operator", StackFact::read("v25.10.0")}};
  const std::string prom = render_prometheus(v);
  EXPECT_EQ(count(prom, "# TYPE gpuqual_stack_component gauge"), 1);
  EXPECT_EQ(count(prom, "gpuqual_stack_component{"), 3);
  // Backslash, double quote and newline escaped as the text exposition format says.
  EXPECT_NE(prom.find("component=\"bios.version\",value=\"2.19\\\\1 \\\"beta\\\"\\nx\",state=\"read\"} 1\n"),
            std::string::npos)
      << prom;
  EXPECT_NE(prom.find("component=\"board.name\",value=\"\",state=\"unread\"} 1\n"), std::string::npos)
      << prom;
  EXPECT_NE(prom.find("component=\"platform.gpu-operator\",value=\"v25.10.0\",state=\"read\"} 1\n"),
            std::string::npos)
      << prom;
  std::istringstream lines(prom);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.rfind("# HELP gpuqual_", 0) == 0 || line.rfind("# TYPE gpuqual_", 0) == 0 ||
                line.rfind("gpuqual_", 0) == 0)
        << line;
  }
}

TEST(ReportPrometheus, RepeatedSeriesAreWrittenOnce) {
  Verdict v = hostile_verdict();
  v.metrics.push_back(v.metrics.front());  // the same check × metric × GPU twice
  EXPECT_EQ(count(render_prometheus(v), "gpuqual_metric_value{"), 1);
}

TEST(ReportMarkdown, EscapesTableCells) {
  const std::string md = render_markdown(hostile_verdict());
  // Every ASCII punctuation character backslash-escaped (core/base/text_escape.hpp: escape_markdown).
  EXPECT_NE(md.find("slow \\| \\\"really\\\" \\<b\\>\\x01\\<\\/b\\>"), std::string::npos) << md;
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("- a \\| b c \\<script\\>"), std::string::npos) << md;
}

TEST(ReportTable, ColumnsAreAligned) {
  const std::string table =
      render_table(judge_fixture("synthetic-slow-gpu"), gpuqual::kNoWidthLimit);  // a row a line
  std::istringstream lines(table);
  std::size_t status_col = std::string::npos;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("METRIC", 0) == 0) {
      status_col = line.find("STATUS");
      continue;
    }
    if (status_col == std::string::npos) continue;
    if (line.empty()) break;
    ++rows;
    const std::string status = line.substr(status_col, 4);
    EXPECT_TRUE(status == "pass" || status == "fail" || status == "skip") << line;
  }
  EXPECT_EQ(rows, 9);
}

TEST(VerdictJson, RoundTripsEveryFixture) {
  for (const auto& name : fixture_names()) {
    const json j = to_json(judge_fixture(name));
    EXPECT_EQ(j["schema"], "gpuqual.verdict/v1");
    EXPECT_EQ(to_json(verdict_from_json(j, name)), j) << name;
  }
}

TEST(VerdictJson, RoundTripsNestedGateVerdicts) {
  Verdict gate;
  gate.kind = "gate";
  gate.nodes = {judge_fixture("synthetic-healthy"), judge_fixture("synthetic-slow-gpu")};
  const json j = to_json(gate);
  EXPECT_EQ(to_json(verdict_from_json(j, "gate.json")), j);
}

TEST(VerdictJson, ReaderIsStrict) {
  const json good = to_json(judge_fixture("synthetic-slow-gpu"));
  auto rejected = [&](json j, const std::string& where, const std::string& problem) {
    try {
      verdict_from_json(j, "v.json");
      ADD_FAILURE() << "accepted a verdict that is wrong at " << where;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("v.json: " + where + ": "), std::string::npos) << msg;
      EXPECT_NE(msg.find(problem), std::string::npos) << msg;
    }
  };
  json j = good;
  j["schema"] = "gpuqual.verdict/v2";
  rejected(j, "$.schema", "unsupported schema");
  j = good;
  j["outcome"] = "maybe";
  rejected(j, "$.outcome", "unknown outcome");
  j = good;
  j["metrics"][0]["status"] = "ok";
  rejected(j, "$.metrics[0].status", "unknown status");
  j = good;
  j["metrics"][1]["observed"] = "fast";
  rejected(j, "$.metrics[1].observed", "expected a number");
  j = good;
  j["checks"][0]["extra"] = 1;
  rejected(j, "$.checks[0].extra", "unknown field");
  j = good;
  j["exit_code"] = 7;
  rejected(j, "$.exit_code", "out of range");
}
