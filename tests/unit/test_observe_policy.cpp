// The observe policy's strict loader (core/judge/observe_policy.hpp): defaults from the smallest
// policy, every key read, and a bad key, type or value named with its file and line (exit 3).
// Also `observe --wait`'s wait (runner/commands/observe_wait.hpp): it ends early on a stop.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/base/input_error.hpp"
#include "core/judge/observe_policy.hpp"
#include "runner/commands/observe_wait.hpp"

namespace gpuqual::observe {
namespace {

constexpr const char* kSmallest = R"(schema: gpuqual.observe/v1
workloads:
  - name: train.step_time
    query: workload_step_time_seconds
    node_label: node
    direction: lower
)";

std::string load_error(const std::string& text) {
  try {
    parse_observe_policy_yaml(text, "policy.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ObservePolicy, SmallestFormTakesTheDefaults) {
  const ObservePolicy p = parse_observe_policy_yaml(kSmallest, "policy.yaml");
  ASSERT_EQ(p.workloads.size(), 1u);
  EXPECT_EQ(p.workloads[0].name, "train.step_time");
  EXPECT_EQ(p.workloads[0].direction, Direction::lower);
  EXPECT_DOUBLE_EQ(p.workloads[0].allowed_change, 0.02);
  EXPECT_EQ(p.node_label, "Hostname");
  EXPECT_DOUBLE_EQ(p.min_utilization_pct, 20);
  EXPECT_EQ(p.blocks, 8);
  EXPECT_TRUE(p.xid_overrides.empty());
}

TEST(ObservePolicy, EveryKeyIsRead) {
  const ObservePolicy p = parse_observe_policy_yaml(R"(schema: gpuqual.observe/v1
node_label: hostname
window: 2h
scrape_interval: 30s
load: {min_utilization: 40, min_busy_gpus: 0.5}
completeness: {max_gap: 2m, min_coverage: 0.8}
clock_events: {unit: us, allowed_fraction: 0.1}
comparison: {blocks: 12, confidence: 0.99, split: 4, consecutive: 2}
xids: {13: fail, 79: warn}
workloads:
  - {name: a, query: 'histogram_quantile(0.99, rate(x[5m]))', node_label: instance, direction: higher,
     allowed_change: 3%, warn_change: 1}
)",
                                                    "policy.yaml");
  EXPECT_EQ(p.node_label, "hostname");
  EXPECT_EQ(p.window, "2h");
  EXPECT_DOUBLE_EQ(p.scrape_interval_s, 30);
  EXPECT_DOUBLE_EQ(p.min_busy_fraction, 0.5);
  EXPECT_DOUBLE_EQ(p.max_gap_s, 120);
  EXPECT_DOUBLE_EQ(p.violation_unit_s, 1e-6);
  EXPECT_EQ(p.split, 4);
  EXPECT_EQ(p.consecutive, 2);
  EXPECT_EQ(p.xid_overrides.at(13), Severity::fail);
  EXPECT_DOUBLE_EQ(p.workloads[0].allowed_change, 0.03);
  EXPECT_DOUBLE_EQ(*p.workloads[0].warn_change, 0.01);
  EXPECT_EQ(p.workloads[0].direction, Direction::higher);
}

TEST(ObservePolicy, BadInputNamesFileLineAndPath) {
  const std::string base = "schema: gpuqual.observe/v1\nworkloads:\n  - name: a\n    query: q\n";
  EXPECT_EQ(
      load_error(base + "    direction: sideways\n"),
      "policy.yaml: line 5: $.workloads[0].direction: \"sideways\" is not lower or higher (which way is "
      "better)");
  EXPECT_NE(load_error(base + "    direction: lower\n    alowed_change: 2%\n").find("line 6"),
            std::string::npos);
  EXPECT_NE(load_error(base + "    direction: lower\nload: {min_utilization: 120}\n")
                .find("$.load.min_utilization"),
            std::string::npos);
  EXPECT_NE(load_error(base + "    direction: lower\nxids: {79: fatal}\n").find("$.xids.79"),
            std::string::npos);
  EXPECT_NE(
      load_error(base + "    direction: lower\ncomparison: {split: 2, consecutive: 3}\n").find("consecutive"),
      std::string::npos);
  EXPECT_NE(load_error("schema: gpuqual.observe/v2\nworkloads: []\n").find("unsupported schema"),
            std::string::npos);
  EXPECT_NE(load_error(base + "    direction: lower\n  - name: a\n    query: r\n    direction: lower\n")
                .find("named twice"),
            std::string::npos);
  EXPECT_NE(load_error("schema: gpuqual.observe/v1\n").find("workloads"), std::string::npos);
}

TEST(ObservePolicy, OptionalSeriesAndWorkloadsAreReadAndAnUnknownFieldIsExit3) {
  const ObservePolicy p = parse_observe_policy_yaml(R"(schema: gpuqual.observe/v1
optional_series: [DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, DCGM_FI_DEV_CLOCK_THROTTLE_REASONS]
workloads:
  - {name: a, query: q, direction: lower, optional: true}
)",
                                                    "policy.yaml");
  // The clock-event reasons' pre-DCGM-3.3 name marks the field observe reads under either name.
  EXPECT_EQ(p.optional_series, (std::set<std::string>{"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                                                      "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"}));
  EXPECT_TRUE(p.workloads[0].optional);
  EXPECT_TRUE(parse_observe_policy_yaml(kSmallest, "policy.yaml").optional_series.empty());
  EXPECT_FALSE(parse_observe_policy_yaml(kSmallest, "policy.yaml").workloads[0].optional);
  // Utilization is never optional (it is what completeness and load read), nor is a typo.
  for (const char* bad : {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_XID_ERROR"}) {
    const std::string e = load_error(std::string("schema: gpuqual.observe/v1\noptional_series: [") + bad +
                                     "]\nworkloads: []\n");
    EXPECT_NE(e.find("policy.yaml: line 2: $.optional_series[0]: \"" + std::string(bad) +
                     "\" is not a field observe judges"),
              std::string::npos)
        << e;
  }
}

TEST(ObservePolicy, Durations) {
  EXPECT_EQ(parse_duration_s("15s"), 15);
  EXPECT_EQ(parse_duration_s("2h"), 7200);
  EXPECT_EQ(parse_duration_s("1h30m"), 5400);
  EXPECT_EQ(parse_duration_s("1d"), 86400);
  EXPECT_FALSE(parse_duration_s("2"));
  EXPECT_FALSE(parse_duration_s("h"));
  EXPECT_FALSE(parse_duration_s("0s"));
  EXPECT_FALSE(parse_duration_s("2x"));
  EXPECT_FALSE(parse_duration_s(""));
}

}  // namespace
}  // namespace gpuqual::observe

namespace gpuqual {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t) {
  return std::chrono::duration<double>(steady::now() - t).count();
}

TEST(ObserveWait, EndsEarlyWhenStopped) {
  std::atomic<bool> stop{false};
  const steady::time_point t0 = steady::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    stop.store(true);
  });
  const WaitEnd end = wait_or_stop(milliseconds(600'000), stop, milliseconds(0), nullptr, milliseconds(50));
  stopper.join();
  EXPECT_EQ(end, WaitEnd::stopped);
  EXPECT_LT(seconds_since(t0), 30);  // ten minutes asked for; generous on a loaded machine
}

TEST(ObserveWait, AStopAlreadySetEndsItAtOnce) {
  std::atomic<bool> stop{true};
  int calls = 0;
  EXPECT_EQ(wait_or_stop(milliseconds(600'000), stop, milliseconds(1), [&](milliseconds) { ++calls; }),
            WaitEnd::stopped);
  EXPECT_EQ(calls, 0);
}

TEST(ObserveWait, WaitsTheWholeDurationAndReportsProgress) {
  std::atomic<bool> stop{false};
  std::vector<milliseconds> left;
  const steady::time_point t0 = steady::now();
  const WaitEnd end = wait_or_stop(
      milliseconds(1200), stop, milliseconds(300), [&](milliseconds l) { left.push_back(l); },
      milliseconds(20));
  EXPECT_EQ(end, WaitEnd::elapsed);
  EXPECT_GE(seconds_since(t0), 1.2);  // never shorter: the window must have ended
  // At most one line per 300 ms of a 1.2 s wait, none at the start; each with less left.
  EXPECT_LE(left.size(), 3u);
  for (std::size_t i = 0; i < left.size(); ++i) {
    EXPECT_LE(left[i], milliseconds(1200 - 300));
    if (i > 0) {
      EXPECT_LT(left[i], left[i - 1]);
    }
  }
}

TEST(ObserveWait, SigtermSetsTheFlagWhileItLives) {
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  {
    const StopOnSignal stop;
    EXPECT_FALSE(stop.flag().load());
    ASSERT_EQ(::raise(SIGTERM), 0);  // would end the test binary without the handler
    EXPECT_TRUE(stop.flag().load());
    EXPECT_EQ(stop.signal(), SIGTERM);
    EXPECT_EQ(wait_or_stop(milliseconds(600'000), stop.flag(), milliseconds(0), nullptr), WaitEnd::stopped);
  }
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);  // the previous handler is back
}

TEST(ObserveWait, DurationText) {
  EXPECT_EQ(duration_text(7200), "2h");
  EXPECT_EQ(duration_text(5400), "1h30m");
  EXPECT_EQ(duration_text(20), "20s");
  EXPECT_EQ(duration_text(65), "1m5s");
  EXPECT_EQ(duration_text(0), "0s");
}

TEST(ObserveWait, TheWindowStartsNow) {
  ::setenv("GPUQUAL_NOW", "2026-11-02T10:00:00Z", 1);
  const observe::Window w = window_from_now("2h", "15s");
  EXPECT_DOUBLE_EQ(w.start, 1793613600);  // 2026-11-02T10:00:00Z
  EXPECT_DOUBLE_EQ(w.end, w.start + 7200);
  EXPECT_DOUBLE_EQ(w.step, 15);
  try {
    window_from_now("soon", "15s");
    ADD_FAILURE() << "a bad --window was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "--window");
  }
  ::unsetenv("GPUQUAL_NOW");
}

}  // namespace
}  // namespace gpuqual
