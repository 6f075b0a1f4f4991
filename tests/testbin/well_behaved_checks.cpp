// Test-only checks that behave: each status, an exception, progress, a sleep that honours the
// stop request, and one that echoes its context so the test can see what the child received.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/record/metric_summary.hpp"
#include "test_check_support.hpp"

namespace gpuqual::testbin {

namespace {

class PassCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    note_pid(ctx, "check", getpid());
    CheckResult r = result(Status::pass, "");
    const double v = param(ctx, "value", 100);
    r.metrics.push_back(summarize_metric("test.value", "count", Direction::higher, std::nullopt, {v, v, v}));
    return r;
  }
};

class FailCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    note_pid(ctx, "check", getpid());
    CheckResult r = result(Status::fail, "planted failure");
    r.findings.push_back(Finding{
        .code = "test.planted", .severity = Severity::fail, .detail = "a finding planted by the test"});
    return r;
  }
};

class SkipCheck : public Check {
 public:
  // params: {reason_code: single_gpu} makes it a not-applicable skip; without, it could not measure.
  CheckResult run(const CheckContext& ctx) override {
    CheckResult r = result(Status::skip, "not applicable: planted skip");
    if (ctx.params.contains("reason_code")) r.reason_code = ctx.params.at("reason_code").get<std::string>();
    return r;
  }
};

class WarnCheck : public Check {
 public:
  CheckResult run(const CheckContext&) override { return result(Status::warn, "planted warning"); }
};

class ThrowCheck : public Check {
 public:
  CheckResult run(const CheckContext&) override { throw std::runtime_error("planted exception"); }
};

class ContextCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    CheckResult r = result(Status::pass, "");
    std::string gpus;
    for (int g : ctx.gpus) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
    r.attributes["gpus"] = gpus;
    r.attributes["node_gpus"] = std::to_string(ctx.node_gpus.size());
    r.attributes["budget_s"] = fmt::format("{}", ctx.budget_s);
    r.attributes["params"] = ctx.params.dump();
    r.attributes["hostname"] = ctx.node.hostname;
    r.attributes["hardware_class"] = ctx.hardware_class;
    r.attributes["gpu_unavailable_reason"] = ctx.gpu_unavailable_reason;
    r.attributes["side_dir"] = ctx.side_dir;
    const char* run_id = std::getenv("GPUQUAL_RUN_ID");
    r.attributes["env_run_id"] = run_id ? run_id : "";
    r.attributes["side_dir_exists"] = std::filesystem::is_directory(ctx.side_dir) ? "yes" : "no";
    if (ctx.params.contains("side_file")) {
      // As the real checks do: the side directory is made by its first writer.
      std::filesystem::create_directories(ctx.side_dir);
      std::ofstream(std::filesystem::path(ctx.side_dir) / ctx.params.at("side_file").get<std::string>())
          << "side data\n";
    }
    return r;
  }
};

// params: messages (3), text ("step": the message is "<text> i/n"), pause_s between them (0.02).
class ProgressCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const int n = static_cast<int>(param(ctx, "messages", 3));
    const std::string text = ctx.params.contains("text") ? ctx.params.at("text").get<std::string>() : "step";
    for (int i = 1; i <= n; ++i) {
      if (ctx.progress) ctx.progress(fmt::format("{} {}/{}", text, i, n));
      sleep_s(param(ctx, "pause_s", 0.02));
    }
    return result(Status::pass, "");
  }
};

// Sleeps `seconds`; on a stop request (SIGTERM from the watchdog or a stopped run) it ends early
// and reports what it did, as a long check should.
class SleepCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    note_pid(ctx, "check", getpid());
    const double total = param(ctx, "seconds", 30);
    const auto t0 = std::chrono::steady_clock::now();
    double slept = 0;
    while (slept < total) {
      if (ctx.should_stop())
        return result(Status::error, fmt::format("stopped after {:.1f} of {:.0f} s", slept, total));
      sleep_s(0.01);
      slept = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return result(Status::pass, "");
  }
};

}  // namespace

GPUQUAL_REGISTER_TEST_CHECK(PassCheck, "test_pass", "passes with one node metric test.value (params: value)");
GPUQUAL_REGISTER_TEST_CHECK(FailCheck, "test_fail", "fails with a planted finding");
GPUQUAL_REGISTER_TEST_CHECK(SkipCheck, "test_skip", "skips with a reason");
GPUQUAL_REGISTER_TEST_CHECK(WarnCheck, "test_warn", "warns");
GPUQUAL_REGISTER_TEST_CHECK(ThrowCheck, "test_throw", "throws an exception");
GPUQUAL_REGISTER_TEST_CHECK(ContextCheck, "test_context", "echoes its CheckContext into attributes");
GPUQUAL_REGISTER_TEST_CHECK(ProgressCheck, "test_progress",
                            "sends progress messages (params: messages, text, pause_s)");
GPUQUAL_REGISTER_TEST_CHECK(SleepCheck, "test_sleep",
                            "sleeps (params: seconds), ends early on a stop request");

}  // namespace gpuqual::testbin
