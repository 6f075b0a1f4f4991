// telemetry: does monitoring still see every GPU? Scrapes the GPU exporter (dcgm-exporter by
// default) and requires every expected series for every GPU of the node, by UUID. The work is
// in probes/telemetry/telemetry_check.cpp.
#include "probes/telemetry/telemetry_check.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

namespace {

class TelemetryCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const probes::TelemetryConfig config = probes::parse_telemetry_params(ctx.params, "telemetry params");
    return probes::run_telemetry(config, ctx.node_gpus, "", ctx.stop_requested);
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(
    TelemetryCheck, "telemetry",
    "Scrape the GPU exporter (dcgm-exporter) and require every expected series for every GPU");

}  // namespace gpuqual
