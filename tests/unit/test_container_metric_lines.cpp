// The gpuqual-metric line protocol of container probes (probes/container/metric_lines.hpp): good lines
// become container.<probe>.<name> metrics, bad ones findings, and the bounds hold.
#include <gtest/gtest.h>

#include <string>

#include "core/judge/diff.hpp"
#include "probes/container/metric_lines.hpp"
#include "probes/container/probe_run.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::probes;

TEST(ContainerMetricLines, GoodLinesBecomeMetricsAndRepeatedNamesAddSamples) {
  const std::string out =
      "loading model\n"
      "gpuqual-metric {\"name\": \"step_time\", \"unit\": \"ms\", \"direction\": \"lower\", \"samples\": "
      "[41.5, 42.5]}\n"
      "gpuqual-metric {\"name\": \"tokens_per_s\", \"unit\": \"tokens/s\", \"direction\": \"higher\", "
      "\"value\": 1873.25}\r\n"
      "gpuqual-metric {\"name\": \"step_time\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 43}\n"
      "  gpuqual-metric {\"not\": \"at the line start: the image's own text\"}\n"
      "done";
  const MetricLines m = parse_metric_lines(out, false, "trainer");
  EXPECT_TRUE(m.findings.empty()) << m.findings.front().detail;
  EXPECT_EQ(m.lines, 3u);
  ASSERT_EQ(m.metrics.size(), 2u);
  EXPECT_EQ(m.metrics[0].name, "container.trainer.step_time");
  EXPECT_EQ(m.metrics[0].unit, "ms");
  EXPECT_EQ(m.metrics[0].direction, Direction::lower);
  EXPECT_EQ(m.metrics[0].samples, (std::vector<double>{41.5, 42.5, 43}));
  EXPECT_DOUBLE_EQ(m.metrics[0].median, 42.5);
  EXPECT_FALSE(m.metrics[0].gpu);
  EXPECT_EQ(m.metrics[1].name, "container.trainer.tokens_per_s");
  EXPECT_DOUBLE_EQ(m.metrics[1].median, 1873.25);
}

TEST(ContainerMetricLines, MalformedLinesAreFindingsNeverExceptions) {
  const char* bad[] = {
      "gpuqual-metric not json",
      "gpuqual-metric [1, 2]",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\"}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1, "
      "\"samples\": [1]}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"parsecs\", \"direction\": \"lower\", \"value\": 1}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"sideways\", \"value\": 1}",
      "gpuqual-metric {\"name\": \"Step Time\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1}",
      "gpuqual-metric {\"name\": \"start_latency\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": "
      "1}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": \"fast\"}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"samples\": []}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"samples\": [1, null]}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1, \"gpu\": "
      "0}",
      "gpuqual-metric {\"name\": 7, \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1e999}",
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1",
      "gpuqual-metric \xff\xfe",
  };
  for (const char* line : bad) {
    MetricLines m;
    ASSERT_NO_THROW(m = parse_metric_lines(std::string(line) + "\n", false, "p")) << line;
    EXPECT_TRUE(m.metrics.empty()) << line;
    ASSERT_EQ(m.findings.size(), 1u) << line;
    EXPECT_EQ(m.findings[0].code, "container.metric_malformed") << line;
    EXPECT_EQ(m.findings[0].severity, Severity::warn);
    EXPECT_NE(m.findings[0].detail.find("p: line 1: "), std::string::npos) << m.findings[0].detail;
  }
  // The same name with another unit: the second line is refused, the first kept.
  const MetricLines m = parse_metric_lines(
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1}\n"
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"s\", \"direction\": \"lower\", \"value\": 1}\n",
      false, "p");
  ASSERT_EQ(m.metrics.size(), 1u);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_NE(m.findings[0].detail.find("line 2"), std::string::npos);
}

TEST(ContainerMetricLines, BoundedLinesBytesAndSamples) {
  std::string out;
  for (int i = 0; i < 100; ++i)
    out += "gpuqual-metric {\"name\": \"m" + std::to_string(i) +
           "\", \"unit\": \"count\", \"direction\": \"higher\", \"value\": 1}\n";
  MetricLines m = parse_metric_lines(out, false, "p", 10);
  EXPECT_EQ(m.metrics.size(), 10u);
  EXPECT_EQ(m.lines, 10u);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].code, "container.metric_limit");
  EXPECT_NE(m.findings[0].detail.find("more than 10 gpuqual-metric lines; line 11 and later ignored"),
            std::string::npos)
      << m.findings[0].detail;

  const std::string longline =
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1, \"pad\": "
      "\"" +
      std::string(kMaxMetricLineBytes, 'a') + "\"}\n";
  m = parse_metric_lines(longline, false, "p");
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].code, "container.metric_limit");

  std::string many =
      "gpuqual-metric {\"name\": \"x\", \"unit\": \"ms\", \"direction\": \"lower\", \"samples\": [";
  for (std::size_t i = 0; i <= kMaxMetricSamples; ++i) many += (i ? ",1" : "1");
  m = parse_metric_lines(many + "]}\n", false, "p");
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].code, "container.metric_malformed");
}

TEST(ContainerMetricLines, ALastLineCutByTheCaptureLimitIsNotJudged) {
  const std::string out =
      "gpuqual-metric {\"name\": \"a\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 1}\n"
      "gpuqual-metric {\"name\": \"b\", \"unit\": \"ms\", \"dire";
  EXPECT_TRUE(parse_metric_lines(out, true, "p").findings.empty());
  EXPECT_EQ(parse_metric_lines(out, true, "p").metrics.size(), 1u);
  EXPECT_EQ(parse_metric_lines(out, false, "p").findings.size(), 1u);  // not cut: the image printed it so
}

TEST(ContainerMetricLines, AProbeWithBadLinesWarnsAndKeepsTheGoodMetrics) {
  ProbeSpec spec;
  spec.name = "Infer Smoke";
  ProbeOutcome o;
  o.status = Status::pass;
  o.output =
      "gpuqual-metric {\"name\": \"ttft\", \"unit\": \"ms\", \"direction\": \"lower\", \"samples\": [80, "
      "90]}\n"
      "gpuqual-metric oops\n";
  read_image_metrics(spec, o);
  EXPECT_EQ(o.status, Status::warn);
  EXPECT_NE(o.reason.find("gpuqual-metric"), std::string::npos);
  ASSERT_EQ(o.metrics.size(), 1u);
  EXPECT_EQ(o.metrics[0].name, "container.infer-smoke.ttft");
  EXPECT_EQ(o.findings.size(), 1u);
  // A failed probe stays failed; reading can be switched off.
  ProbeOutcome failed = o;
  failed.status = Status::fail;
  failed.metrics.clear();
  failed.findings.clear();
  read_image_metrics(spec, failed);
  EXPECT_EQ(failed.status, Status::fail);
  spec.max_metric_lines = 0;
  ProbeOutcome off;
  off.status = Status::pass;
  off.output = o.output;
  read_image_metrics(spec, off);
  EXPECT_EQ(off.status, Status::pass);
  EXPECT_TRUE(off.metrics.empty());
}

// The image's figures are record metrics like any other: `diff` judges them before/after.
TEST(ContainerMetricLines, DiffJudgesTheImagesOwnFigures) {
  auto record_with = [](const std::string& output) {
    RunRecord r = gpuqual::testing::make_record(1);
    CheckResult c;
    c.name = "container_probe";
    c.status = Status::pass;
    c.metrics = parse_metric_lines(output, false, "train").metrics;
    r.checks.push_back(c);
    return r;
  };
  const auto steps = [](double ms) {
    std::string samples;
    for (int i = 0; i < 20; ++i) samples += (i ? ", " : "") + std::to_string(ms + 0.01 * (i % 5));
    return "gpuqual-metric {\"name\": \"step_time\", \"unit\": \"ms\", \"direction\": \"lower\", "
           "\"samples\": [" +
           samples + "]}\n";
  };
  const RunRecord before = record_with(steps(42.0));
  const Verdict same = diff_records(before, record_with(steps(42.0)), DiffOptions{});
  EXPECT_EQ(same.outcome, Outcome::pass) << same.summary;
  const Verdict slower = diff_records(before, record_with(steps(46.0)), DiffOptions{});  // ~10 % slower steps
  EXPECT_EQ(slower.outcome, Outcome::fail) << slower.summary;
  bool named = false;
  for (const auto& m : slower.metrics)
    named |= m.metric == "container.train.step_time" && m.status == Status::fail;
  EXPECT_TRUE(named);
}
