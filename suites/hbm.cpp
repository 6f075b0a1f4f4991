// `hbm`: STREAM-style memory bandwidth (copy, scale, add, triad, read-only, write-only) in GB/s
// counting bytes read plus written, over arrays of at least 4 x L2 with seeded data; every
// element verified on the GPU and a sample replayed on the host. A wrong answer is `fail` with
// the finding hbm.wrong_result. Parameters (suite YAML): kernels [all], array_mib (0 = max(4 x L2,
// 1 GiB)), verify_samples 1024, threads_per_block 256, and the common measurement keys.
#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "device/hbm/hbm_runner.hpp"
#include "device/measure/measure_clock_probe.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/measure/measure_params.hpp"
#include "device/measure/measure_report.hpp"
#include "device/nvml/nvml_library.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_check_start.hpp"

namespace gpuqual {
namespace {

struct HbmParams {
  HbmConfig config;
  CommonBenchParams common;
};

HbmParams read_hbm_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  HbmParams p;
  if (o.has("kernels")) {
    p.config.kernels.clear();
    for (const auto& name : o.string_array("kernels")) {
      const auto k = parse_stream_kernel(name);
      if (!k) o.fail("kernels", "unknown kernel '" + name + "' (copy, scale, add, triad, read, write)");
      p.config.kernels.push_back(*k);
    }
    if (p.config.kernels.empty()) o.fail("kernels", "must name at least one kernel");
  }
  if (auto v = o.opt_integer("array_mib", 0, static_cast<std::int64_t>(kHbmMaxArrayBytes >> 20))) {
    p.config.array_bytes = static_cast<std::uint64_t>(*v) << 20;
  }
  if (auto v = o.opt_integer("verify_samples", 2, 1 << 20)) p.config.verify_samples = static_cast<int>(*v);
  if (auto v = o.opt_integer("threads_per_block", 64, 1024)) {
    if ((*v & (*v - 1)) != 0) o.fail("threads_per_block", "must be a power of two");
    p.config.threads_per_block = static_cast<unsigned>(*v);
  }
  MeasureConfig defaults;
  defaults.min_sample_s = 0.005;
  p.common = read_common_bench_params(o, defaults);
  p.config.seed = p.common.seed;
  o.finish();
  return p;
}

class HbmBench : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    auto start =
        start_gpu_check("hbm", ctx, [](const nlohmann::json& json) { return read_hbm_params(json); });
    if (start.early) return *start.early;
    auto& params = start.params;
    auto& gpus = start.gpus;

    HbmConfig config = params.config;
    config.measure = params.common.measure;
    config.measure.budget_s =
        share_budget(ctx.budget_s, static_cast<int>(config.kernels.size()), params.common.measure_budget_s);
    const NvmlSession nvml = NvmlSession::open();

    CheckResult result;
    result.name = "hbm";
    std::vector<GpuOutcome> outcomes(gpus.size());
    const auto errors = run_on_each_gpu(gpus, [&](std::size_t slot, int gpu) {
      GpuOutcome& out = outcomes[slot];
      std::string probe_note;
      const MeasureHooks hooks{
          {}, make_nvml_clock_probe(nvml, gpu, &probe_note), [&ctx] { return ctx.should_stop(); }};
      if (!probe_note.empty()) out.attributes["hbm.clock_probe"] = "not read: " + probe_note;
      const HbmRunResult run = run_hbm(config, hooks);
      const std::string g = "hbm.gpu" + std::to_string(gpu) + ".";
      out.attributes[g + "array_bytes"] = std::to_string(run.arrays.bytes);
      out.attributes[g + "l2_bytes"] = std::to_string(run.l2_bytes);
      out.attributes[g + "launch"] =
          std::to_string(run.blocks) + " blocks x " + std::to_string(run.threads) + " threads";
      if (!run.arrays.note.empty()) out.attributes[g + "array_note"] = run.arrays.note;
      for (const auto& k : run.kernels) {
        const std::string name(to_string(k.kernel));
        out.metrics.push_back(
            rate_metric(hbm_metric_name(k.kernel), "GB/s", gpu, k.measure, k.bytes_per_op, 1e9));
        record_measurement_attributes(out, "hbm." + name, gpu, k.measure);
        if (!k.ok()) {
          out.findings.push_back(Finding{
              .code = "hbm.wrong_result",
              .severity = Severity::fail,
              .gpu = gpu,
              .detail = name + " kernel: " + k.problem(),
              .action = "drain the node; run memtest and check ECC/remapped rows, RMA if it repeats",
              .value =
                  static_cast<double>(k.device_mismatches + static_cast<unsigned long long>(k.replay.wrong)),
          });
          out.add(Status::fail, name + ": wrong result: " + k.problem());
          continue;
        }
        std::string why;
        const Status s = measurement_status(k.measure, config.measure, &why);
        if (s != Status::pass) out.add(s, name + ": " + why);
      }
      if (run.kernels.size() < config.kernels.size()) {
        out.add(Status::error, "stopped before every kernel was measured");
      }
    });
    merge_outcomes(result, gpus, outcomes, errors);
    result.attributes["hbm.seed"] = std::to_string(config.seed);
    result.attributes["hbm.accounting"] =
        "GB/s = 1e9 bytes/s; bytes read plus written (copy/scale 16, add/triad 24, read/write 8 per element)";
    start.note_invisible(result, "hbm.gpus_not_visible");
    return result;
  }
};

GPUQUAL_REGISTER_CHECK(HbmBench, "hbm",
                       "HBM bandwidth (copy, scale, add, triad, read, write) in GB/s, verified");

}  // namespace
}  // namespace gpuqual
