// A stand-in for a check that measures CUDA devices (hbm, gemm, ...), for the per-slice runner
// tests (runner/run/device_parts.hpp, docs/mig.md "Measuring each slice"): no GPU here, so it
// reports what a real check would see instead of measuring it. One metric per device it is
// given, in the child's own device numbers; the CUDA_VISIBLE_DEVICES it was started under and
// the node it was told of, as attributes. GPUQUAL_TESTBIN_STAND_IN=hbm,gemm (testbin_main.cpp)
// puts it in place of those checks.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "core/record/metric_summary.hpp"
#include "test_check_support.hpp"

namespace gpuqual::testbin {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// params: seconds (0.3) to stay busy; log_file: one line "<visible> <start> <end>" per run, so a
// test can see that parts overlapped; fail_on: a CUDA_VISIBLE_DEVICES value that fails.
class DeviceStandIn : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::string visible = env ? env : "(unset)";
    const double start = now_s();
    sleep_s(param(ctx, "seconds", 0.3));
    const std::string fail_on = ctx.params.value("fail_on", std::string{});
    CheckResult r =
        visible == fail_on ? result(Status::fail, "planted failure on " + visible) : result(Status::pass, "");
    for (int k : ctx.gpus) {
      Metric m = summarize_metric("test.device", "count", Direction::higher, k, {1.0 + k});
      r.metrics.push_back(std::move(m));
    }
    std::string seen;
    for (const GpuInfo& g : ctx.node_gpus)
      seen += fmt::format("{}{}={}", seen.empty() ? "" : ",", g.index, g.uuid);
    r.attributes["visible_devices"] = visible;
    r.attributes["hardware_class"] = ctx.hardware_class;
    r.attributes["node_gpus"] = seen;
    if (ctx.params.contains("log_file")) {
      std::ofstream(ctx.params.at("log_file").get<std::string>(), std::ios::app)
          << fmt::format("{} {:.6f} {:.6f}\n", visible, start, now_s());
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Check> make_device_stand_in() { return std::make_unique<DeviceStandIn>(); }

}  // namespace gpuqual::testbin
