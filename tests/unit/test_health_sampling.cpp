// The health check's sampling order under PCIe traffic and the link it judges
// (core/rules/health_sampling.hpp), driven with a simulated clock and an event log.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/rules/health_sampling.hpp"

using namespace gpuqual;

namespace {

// Workers become ready `ready_after_s` after start; every step is logged with the clock.
struct Simulated {
  double clock = 0;
  double started_at = -1;
  double ready_after_s = 0.5;
  bool stop_requested = false;
  std::vector<std::string> log;

  LoadedSamplingSteps steps(bool with_load = true) {
    LoadedSamplingSteps s;
    if (with_load) {
      s.start_load = [this] {
        started_at = clock;
        log.push_back("start");
      };
      s.load_ready = [this] { return started_at >= 0 && clock - started_at >= ready_after_s; };
      s.stop_load = [this] { log.push_back("stop"); };
    }
    s.take_sample = [this] {
      log.push_back(started_at >= 0 && clock - started_at >= ready_after_s ? "sample:loaded" : "sample:idle");
    };
    s.should_stop = [this] { return stop_requested; };
    s.now_s = [this] { return clock; };
    s.sleep_s = [this](double d) { clock += d; };
    return s;
  }
};

int count(const std::vector<std::string>& log, const std::string& what) {
  int n = 0;
  for (const auto& l : log) n += l == what;
  return n;
}

}  // namespace

TEST(HealthSampling, SamplesOnlyAfterEveryWorkerCopied) {
  Simulated sim;
  sim.ready_after_s = 1.3;  // contexts take longer than the old fixed 300 ms
  const LoadedSamplingReport r = sample_while_loaded(sim.steps(), 2.0, 0.2, 10);
  EXPECT_TRUE(r.load_ready);
  EXPECT_NEAR(r.waited_for_load_s, 1.3, 0.011);
  ASSERT_GE(sim.log.size(), 3u);
  EXPECT_EQ(sim.log.front(), "start");
  EXPECT_EQ(sim.log.back(), "stop");
  EXPECT_EQ(count(sim.log, "sample:idle"), 0);  // no sample before the load was there
  EXPECT_EQ(count(sim.log, "sample:loaded"), r.samples);
  // 2 s of samples every 0.2 s, counted from the first loaded one (10, or 11 by rounding).
  EXPECT_GE(r.samples, 10);
  EXPECT_LE(r.samples, 11);
}

TEST(HealthSampling, ALoadNeverReadyStillSamplesAndSaysSo) {
  Simulated sim;
  sim.ready_after_s = 1e9;
  const LoadedSamplingReport r = sample_while_loaded(sim.steps(), 1.0, 0.5, 3.0);
  EXPECT_FALSE(r.load_ready);
  EXPECT_NEAR(r.waited_for_load_s, 3.0, 0.011);
  EXPECT_GE(r.samples, 1);
  EXPECT_EQ(sim.log.back(), "stop");
}

TEST(HealthSampling, WithoutLoadSamplingStartsAtOnceAndAStopEndsIt) {
  Simulated sim;
  const LoadedSamplingReport r = sample_while_loaded(sim.steps(false), 1.0, 0.25, 10);
  EXPECT_FALSE(r.load_ready);
  EXPECT_EQ(r.waited_for_load_s, 0);
  EXPECT_EQ(sim.log.front(), "sample:idle");
  EXPECT_EQ(r.samples, 4);
  Simulated stopped;
  stopped.stop_requested = true;
  const LoadedSamplingReport s = sample_while_loaded(stopped.steps(), 5.0, 0.2, 10);
  EXPECT_EQ(s.samples, 1);  // one reading is still taken; the runner's stop ends the window
  EXPECT_EQ(stopped.log.back(), "stop");
}

TEST(HealthSampling, TheHighestLinkReadIsKept) {
  GpuHealthReading g;
  keep_highest_link(g, 1, 16);  // idle: trained down to Gen1
  keep_highest_link(g, 5, 16);  // under load
  keep_highest_link(g, 3, 8);   // one sample caught it retraining
  EXPECT_EQ(g.pcie_gen, 5);
  EXPECT_EQ(g.pcie_width, 16);
  GpuHealthReading unread;
  keep_highest_link(unread, std::nullopt, std::nullopt);
  EXPECT_FALSE(unread.pcie_gen.has_value());
  EXPECT_FALSE(unread.pcie_width.has_value());
}
