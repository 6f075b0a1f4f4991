// `gpuqual report` burn-in section: TFLOP/s windows from the record and the telemetry side file
// (burnin-telemetry.jsonl) drawn as line charts, throttled spans shaded, a torn last line skipped,
// a missing side file named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/judge/compare.hpp"
#include "core/record/record_io.hpp"
#include "runner/html/html_burnin.hpp"
#include "runner/html/html_report.hpp"

namespace fs = std::filesystem;
using namespace gpuqual;

namespace {

class BurninReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuqual-burnin-report-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    record_ = read_record(std::string(GPUQUAL_TEST_DATA) + "/records/synthetic-healthy.json");
    CheckResult c;
    c.name = "burnin";
    c.status = Status::pass;
    for (int gpu : {0, 1}) {
      Metric m;
      m.name = "burnin.bf16.tflops";
      m.unit = "TFLOP/s";
      m.gpu = gpu;
      m.samples = {700, 702, 698, gpu == 1 ? 610.0 : 701.0, 699};
      m.median = 700;
      c.metrics.push_back(m);
    }
    c.attributes["burnin.telemetry_file"] = "/nonexistent/side/burnin-telemetry.jsonl";
    record_.checks.push_back(c);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write_side_file(const std::string& extra = "") {
    std::ofstream out(dir_ / "burnin-telemetry.jsonl");
    for (int t = 0; t < 20; ++t)
      for (int gpu : {0, 1}) {
        const unsigned reasons =
            (gpu == 1 && t >= 10 && t < 14) ? 0x20 : 0x4;  // sw thermal slowdown on GPU 1
        out << "{\"t_s\":" << t << ",\"gpu\":" << gpu << ",\"temperature_c\":" << 60 + t + gpu * 5
            << ",\"power_w\":650,\"power_limit_w\":700,\"sm_clock_mhz\":" << (reasons == 0x20 ? 1500 : 1980)
            << ",\"mem_clock_mhz\":2619,\"clock_reasons\":" << reasons
            << ",\"ecc_corrected\":0,\"ecc_uncorrected\":0}\n";
      }
    out << extra;
  }
  std::string record_path() const { return (dir_ / "record.json").string(); }
  fs::path dir_;
  RunRecord record_;
};

TEST_F(BurninReport, DrawsRateAndTelemetryWithThrottledSpans) {
  write_side_file("{\"t_s\":20,\"gpu\":0,\"temper");  // a run killed mid-line
  const html::BurninTelemetry t = html::load_burnin_telemetry(record_, record_path());
  EXPECT_EQ(t.path, (dir_ / "burnin-telemetry.jsonl").string());  // found next to the record
  ASSERT_EQ(t.temperature_c.size(), 2u);
  EXPECT_EQ(t.temperature_c.at(1).size(), 20u);
  EXPECT_NE(t.note.find("1 line(s)"), std::string::npos);
  const std::string s = html::burnin_section(record_, &t);
  EXPECT_NE(s.find("id=\"burnin\""), std::string::npos);
  for (const char* series : {"burnin.bf16.tflops (per window)", "temperature", "SM clock", "power"})
    EXPECT_NE(s.find(std::string("data-series=\"") + series + "\""), std::string::npos) << series;
  EXPECT_NE(s.find("<polyline class=\"series\" data-gpu=\"0\""), std::string::npos);
  EXPECT_NE(s.find("<polyline class=\"series\" data-gpu=\"1\""), std::string::npos);
  EXPECT_NE(s.find("class=\"throttle\" data-gpu=\"1\""), std::string::npos);
  EXPECT_EQ(s.find("class=\"throttle\" data-gpu=\"0\""),
            std::string::npos);  // sw_power_cap alone is not a slowdown
}

TEST_F(BurninReport, DecimatesLongSeries) {
  write_side_file();
  const html::BurninTelemetry t = html::load_burnin_telemetry(record_, record_path(), 8);
  EXPECT_EQ(t.temperature_c.at(0).size(), 8u);
  EXPECT_EQ(t.temperature_c.at(0).front().first, 0);
  EXPECT_EQ(t.temperature_c.at(0).back().first, 19);  // both ends kept
}

TEST_F(BurninReport, MissingSideFileIsNamedAndTheRateStillDrawn) {
  const html::BurninTelemetry t = html::load_burnin_telemetry(record_, record_path());
  EXPECT_TRUE(t.path.empty());
  EXPECT_NE(t.note.find("/nonexistent/side/burnin-telemetry.jsonl"), std::string::npos);
  const Verdict v = compare_record(record_, nullptr, {});
  html::ReportInput in;
  in.verdict = &v;
  in.record = &record_;
  in.telemetry = &t;
  const std::string page = html::render_report(in);
  EXPECT_NE(page.find("data-series=\"burnin.bf16.tflops (per window)\""), std::string::npos);
  EXPECT_EQ(page.find("data-series=\"temperature\""), std::string::npos);
  EXPECT_NE(page.find("not found"), std::string::npos);
}

TEST(BurninReportNone, NoBurninCheckNoSection) {
  const RunRecord r = read_record(std::string(GPUQUAL_TEST_DATA) + "/records/synthetic-healthy.json");
  EXPECT_EQ(html::burnin_section(r, nullptr), "");
  EXPECT_TRUE(html::load_burnin_telemetry(r, "x.json").note.empty());
}

}  // namespace
