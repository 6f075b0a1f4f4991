// The telemetry check: judging a scrape per GPU and series, and the whole check against a real
// local HTTP server (libcurl over TCP) serving the recorded dcgm-exporter text.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/input_error.hpp"
#include "probes/telemetry/telemetry_check.hpp"
#include "probes/telemetry/telemetry_eval.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "test_telemetry_http_server.hpp"

using namespace gpuqual;
using namespace gpuqual::probes;

namespace {

const char* kGpu0 = "GPU-3f9c2a71-5d4e-8b06-c1a2-7e94d0b5a618";
const char* kGpu1 = "GPU-8a0d6e52-13b7-4f2c-9e8a-b4c61f07d3e9";

std::string read(const std::string& name) {
  std::ifstream f(std::string(GPUQUAL_TEST_DATA) + "/telemetry/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<GpuInfo> two_gpus() {
  GpuInfo a, b;
  a.index = 0;
  a.uuid = kGpu0;
  b.index = 1;
  b.uuid = kGpu1;
  return {a, b};
}

int count_code(const std::vector<Finding>& fs, const std::string& code) {
  int n = 0;
  for (const auto& f : fs) n += f.code == code;
  return n;
}

}  // namespace

TEST(TelemetryJudge, CompleteScrapePassesWithTheDefaultSeries) {
  const auto doc = parse_prometheus_text(read("dcgm-exporter-sample.prom"));
  const auto j = judge_telemetry(doc, {{0, kGpu0}, {1, kGpu1}}, default_dcgm_series());
  EXPECT_EQ(j.status, Status::pass) << j.reason;
  EXPECT_EQ(j.expected_pairs, 2 * default_dcgm_series().size());
  EXPECT_EQ(j.present_pairs, j.expected_pairs);
  ASSERT_EQ(j.per_gpu.size(), 2u);
  EXPECT_EQ(j.per_gpu[1].status, Status::pass);
  EXPECT_TRUE(j.findings.empty());
}

TEST(TelemetryJudge, EveryDefaultSeriesIsInTheRecordedScrape) {
  const auto doc = parse_prometheus_text(read("dcgm-exporter-sample.prom"));
  for (const auto& s : default_dcgm_series()) EXPECT_TRUE(doc.types.count(s)) << s;
}

TEST(TelemetryJudge, MissingGpuAndMissingSeriesFail) {
  const auto doc = parse_prometheus_text(read("one-gpu-one-series-missing.prom"));
  const auto j = judge_telemetry(doc, {{0, kGpu0}, {1, kGpu1}}, default_dcgm_series());
  EXPECT_EQ(j.status, Status::fail);
  EXPECT_EQ(count_code(j.findings, "telemetry.gpu_missing"), 1);
  EXPECT_EQ(count_code(j.findings, "telemetry.series_missing"), 1);
  for (const auto& f : j.findings) {
    if (f.code == "telemetry.gpu_missing") {
      EXPECT_EQ(f.gpu, 1);
    }
    if (f.code == "telemetry.series_missing") {
      EXPECT_EQ(f.gpu, 0);
      EXPECT_NE(f.detail.find("DCGM_FI_DEV_POWER_USAGE"), std::string::npos);
    }
  }
  EXPECT_NE(j.reason.find("no telemetry for GPU 1"), std::string::npos) << j.reason;
  EXPECT_NE(j.reason.find("GPU 0 lacks DCGM_FI_DEV_POWER_USAGE"), std::string::npos) << j.reason;
  ASSERT_EQ(j.per_gpu.size(), 2u);
  EXPECT_EQ(j.per_gpu[0].status, Status::fail);
  EXPECT_EQ(j.per_gpu[1].status, Status::fail);
}

TEST(TelemetryJudge, UuidOfAnotherNodeIsReportedNotCounted) {
  const auto doc = parse_prometheus_text(read("dcgm-exporter-sample.prom"));
  const auto j =
      judge_telemetry(doc, {{0, "GPU-00000000-0000-0000-0000-000000000000"}}, {"DCGM_FI_DEV_GPU_TEMP"});
  EXPECT_EQ(j.status, Status::fail);
  EXPECT_EQ(count_code(j.findings, "telemetry.gpu_missing"), 1);
  EXPECT_EQ(count_code(j.findings, "telemetry.unknown_gpu"), 2);
}

TEST(TelemetryJudge, OldNamespaceLowercaseUuidLabelIsAccepted) {
  const auto doc =
      parse_prometheus_text("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",uuid=\"GPU-a\",device=\"nvidia0\"} 40\n");
  EXPECT_EQ(judge_telemetry(doc, {{0, "GPU-a"}}, {"DCGM_FI_DEV_GPU_TEMP"}).status, Status::pass);
  EXPECT_EQ(judge_telemetry(doc, {{0, "GPU-a"}}, {"DCGM_FI_DEV_GPU_TEMP"}, {"UUID"}).status, Status::fail);
}

TEST(TelemetryParams, DefaultsAndStrictness) {
  const auto c = parse_telemetry_params(nlohmann::json::object(), "p");
  EXPECT_EQ(c.url, "http://localhost:9400/metrics");
  EXPECT_EQ(c.series, default_dcgm_series());
  const auto d = parse_telemetry_params(
      nlohmann::json{{"url", "http://10.0.0.1:9400/metrics"}, {"series", {"A", "B"}}, {"timeout_s", 2}}, "p");
  EXPECT_EQ(d.series, (std::vector<std::string>{"A", "B"}));
  EXPECT_THROW(parse_telemetry_params(nlohmann::json{{"url", "ftp://x"}}, "p"), InputError);
  EXPECT_THROW(parse_telemetry_params(nlohmann::json{{"series", nlohmann::json::array()}}, "p"), InputError);
  EXPECT_THROW(parse_telemetry_params(nlohmann::json{{"seris", {"A"}}}, "p"), InputError);  // typo
  EXPECT_THROW(parse_telemetry_params(nlohmann::json{{"series", {1}}}, "p"), InputError);
}

TEST(TelemetryCheck, ScrapesALocalServerAndFailsOnTheMissingGpuAndSeries) {
  testhttp::TinyHttpServer server(200, read("one-gpu-one-series-missing.prom"));
  const auto* info = CheckRegistry::instance().find("telemetry");
  ASSERT_NE(info, nullptr);
  CheckContext ctx;
  ctx.node_gpus = two_gpus();
  ctx.params = {{"url", server.url()}};
  const CheckResult r = info->make()->run(ctx);
  EXPECT_EQ(r.status, Status::fail) << r.reason;
  EXPECT_EQ(count_code(r.findings, "telemetry.gpu_missing"), 1);
  EXPECT_EQ(count_code(r.findings, "telemetry.series_missing"), 1);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0], "GET /metrics HTTP/1.1");
  bool has_scrape_time = false;
  for (const auto& m : r.metrics) has_scrape_time |= m.name == "telemetry.scrape_time" && m.unit == "ms";
  EXPECT_TRUE(has_scrape_time);
}

TEST(TelemetryCheck, CompleteScrapePasses) {
  testhttp::TinyHttpServer server(200, read("dcgm-exporter-sample.prom"));
  CheckContext ctx;
  ctx.node_gpus = two_gpus();
  ctx.params = {{"url", server.url()}};
  const CheckResult r = CheckRegistry::instance().find("telemetry")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_EQ(r.attributes.at("samples"), "54");
}

TEST(TelemetryCheck, EndpointDownIsError) {
  TelemetryConfig c;
  c.url = "http://127.0.0.1:" + std::to_string(testhttp::closed_local_port()) + "/metrics";
  const CheckResult r = run_telemetry(c, two_gpus(), "", nullptr);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.reason.find("unreachable"), std::string::npos) << r.reason;
}

TEST(TelemetryCheck, HttpErrorIsErrorAndGarbageIsFail) {
  {
    testhttp::TinyHttpServer server(503, "exporter starting");
    TelemetryConfig c;
    c.url = server.url();
    const CheckResult r = run_telemetry(c, two_gpus(), "", nullptr);
    EXPECT_EQ(r.status, Status::error);
    EXPECT_NE(r.reason.find("HTTP 503"), std::string::npos) << r.reason;
  }
  {
    testhttp::TinyHttpServer server(200, "<html>not metrics</html>\n");
    TelemetryConfig c;
    c.url = server.url();
    const CheckResult r = run_telemetry(c, two_gpus(), "", nullptr);
    EXPECT_EQ(r.status, Status::fail);
    EXPECT_EQ(count_code(r.findings, "telemetry.malformed"), 1);
  }
}

TEST(TelemetryCheck, NoGpuOnTheNodeIsSkipWithTheReason) {
  testhttp::TinyHttpServer server(200, read("dcgm-exporter-sample.prom"));
  TelemetryConfig c;
  c.url = server.url();
  const CheckResult r = run_telemetry(c, {}, "cudaErrorInsufficientDriver", nullptr);
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_NE(r.reason.find("cudaErrorInsufficientDriver"), std::string::npos) << r.reason;
}

TEST(TelemetryCheck, GpuUuidsFromParametersReplaceTheInventory) {
  testhttp::TinyHttpServer server(200, read("dcgm-exporter-sample.prom"));
  CheckContext ctx;  // GPU-less inventory
  ctx.params = {{"url", server.url()}, {"gpu_uuids", {kGpu1}}, {"series", {"DCGM_FI_DEV_GPU_TEMP"}}};
  const CheckResult r = CheckRegistry::instance().find("telemetry")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_EQ(r.attributes.at("gpus_from"), "parameters");
}
