// `burnin`: sustained load for `duration_s` on every GPU at once: tensor-core GEMM at the class's
// main precision (bf16 on sm_80+) with every product's output compared bit for bit with the
// first, which is itself checked against the host reference on 256 sampled elements before its
// fingerprint becomes the reference (wrong: burnin.wrong_first_product, fail), memtest passes every
// `memtest_every_s`, and a telemetry sampler at `telemetry_hz` streaming to a side file
// (burnin-telemetry.jsonl next to the record) while the record keeps a fixed-size summary. Findings:
// burnin.wrong_result and memtest.bit_errors (fail), new ECC errors and Xids (fail; corrected ECC growth
// warns), throttling above `throttle_warn_fraction` of the time (warn); no telemetry sample or the Xid watch
// off: warn (core/rules/burnin_logic.hpp burnin_unwatched). Stopped before `min_duration_s`: error "stopped
// after N of M minutes", keeping what was measured.
// Parameters: duration_s, min_duration_s (default duration_s), telemetry_hz 1, memtest_every_s
// 600 (0: none), memtest_fraction 0.9, precision auto|bf16|fp16|fp8|tf32|fp32, size 8192,
// throttle_warn_fraction 0.05, seed 1.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/record/metric_summary.hpp"
#include "core/rules/burnin_logic.hpp"
#include "device/burnin/burnin_runner.hpp"
#include "device/cuda/cuda_error.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/memtest/memtest_report.hpp"
#include "device/monitor/telemetry_sampler.hpp"
#include "device/monitor/xid_monitor.hpp"
#include "device/nvml/nvml_library.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_check_start.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {
namespace {

struct BurninParams {
  BurninConfig config;
  double min_duration_s = -1;
  double telemetry_hz = 1;
  std::optional<GemmPrecision> precision;  // empty: the class's main precision
  BurninThresholds thresholds;
};

BurninParams read_burnin_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  BurninParams p;
  p.config.duration_s = o.number("duration_s", 1, 366.0 * 86400);
  p.min_duration_s = o.opt_number("min_duration_s", 0, 366.0 * 86400).value_or(p.config.duration_s);
  if (auto v = o.opt_number("telemetry_hz", 0.01, 10)) p.telemetry_hz = *v;
  if (auto v = o.opt_number("memtest_every_s", 0, 366.0 * 86400)) p.config.memtest_every_s = *v;
  if (auto v = o.opt_number("memtest_fraction", 0.001, 1)) p.config.memtest.fraction_of_free = *v;
  if (auto v = o.opt_integer("memtest_max_mib", 0, 1 << 30))
    p.config.memtest.max_bytes = static_cast<std::uint64_t>(*v) << 20;
  if (o.has("precision")) {
    const auto text = o.str("precision");
    if (text != "auto") {
      const auto prec = parse_gemm_precision(text);
      if (!prec || *prec == GemmPrecision::fp64 || *prec == GemmPrecision::int8) {
        o.fail("precision",
               "unknown or unsupported precision '" + text + "' (auto, bf16, fp16, fp8, tf32, fp32)");
      }
      p.precision = prec;
    }
  }
  if (auto v = o.opt_integer("size", 256, 32768)) p.config.size = static_cast<std::uint64_t>(*v);
  if (auto v = o.opt_number("throttle_warn_fraction", 0, 1)) p.thresholds.throttled_fraction_warn = *v;
  if (auto v = o.opt_integer("seed", 0, std::numeric_limits<std::int64_t>::max())) {
    p.config.seed = static_cast<std::uint64_t>(*v);
    p.config.memtest.seed = p.config.seed;
  }
  o.finish();
  return p;
}

// The class's main tensor-core precision: bf16 from Ampere on, fp16 on Volta/Turing, else fp32.
GemmPrecision main_precision(int gpu) {
  int major = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, gpu));
  return major >= 8 ? GemmPrecision::bf16 : major >= 7 ? GemmPrecision::fp16 : GemmPrecision::fp32;
}

Metric one_value(const std::string& name, const std::string& unit, Direction d, int gpu, double v) {
  return summarize_metric(name, unit, d, gpu, {v});
}

void report_telemetry(GpuOutcome& out, int gpu, const TelemetrySummary& t, const BurninThresholds& th) {
  const std::string g = "burnin.gpu" + std::to_string(gpu) + ".";
  out.attributes[g + "telemetry_samples"] = std::to_string(t.samples());
  if (t.samples() == 0) return;
  if (t.temperature().seen()) {
    out.metrics.push_back(
        one_value("burnin.temperature_max", "celsius", Direction::lower, gpu, t.temperature().max()));
  }
  if (t.power().seen()) {
    out.metrics.push_back(one_value("burnin.power_max", "W", Direction::lower, gpu, t.power().max()));
    out.metrics.push_back(
        one_value("burnin.power_median", "W", Direction::lower, gpu, t.power().percentile(50)));
    if (t.power_limit_w() && *t.power_limit_w() > 0) {
      out.metrics.push_back(one_value("burnin.power_limit", "W", Direction::higher, gpu, *t.power_limit_w()));
      out.metrics.push_back(one_value("burnin.power_to_limit", "ratio", Direction::lower, gpu,
                                      t.power().percentile(50) / *t.power_limit_w()));
    }
  }
  if (t.sm_clock().seen()) {
    out.metrics.push_back(
        one_value("burnin.sm_clock_median", "MHz", Direction::higher, gpu, t.sm_clock().percentile(50)));
  }
  if (t.reasons_read() > 0) {
    out.metrics.push_back(
        one_value("burnin.throttled_fraction", "ratio", Direction::lower, gpu, t.throttled_fraction()));
  }
  std::string reasons;
  for (const auto& [name, f] : t.reason_fractions())
    reasons += fmt::format("{}{}={:.3f}", reasons.empty() ? "" : ",", name, f);
  if (!reasons.empty()) out.attributes[g + "clock_reason_fractions"] = reasons;

  const TelemetryVerdict v = judge_telemetry(t, th);
  if (v.throttle_warn) {
    Finding f{"burnin.throttled",
              Severity::warn,
              gpu,
              v.throttle_detail,
              "check cooling (airflow, fan/pump, inlet temperature) and power delivery",
              t.throttled_fraction()};
    out.findings.push_back(f);
    out.add(Status::warn, v.throttle_detail);
  }
  if (!v.ecc_detail.empty()) {
    Finding f{v.ecc_fail ? "burnin.ecc_uncorrected_new" : "burnin.ecc_corrected_new",
              v.ecc_fail ? Severity::fail : Severity::warn,
              gpu,
              v.ecc_detail,
              "drain the node; check remapped rows and rerun memtest, RMA if uncorrected errors repeat",
              static_cast<double>(v.ecc_fail ? t.ecc_uncorrected_growth() : t.ecc_corrected_growth())};
    out.findings.push_back(f);
    out.add(v.ecc_fail ? Status::fail : Status::warn, v.ecc_detail);
  }
}

// A GPU's progress line: where the load is, its throughput, and the latest telemetry sample.
std::string burnin_progress(int gpu, double elapsed, double duration_s, double tflops,
                            const TelemetrySample& s) {
  return fmt::format("burnin gpu {}: {} of {} (ETA {}), {:.0f} TFLOP/s{}{}", gpu, format_duration(elapsed),
                     format_duration(duration_s), format_duration(std::max(0.0, duration_s - elapsed)),
                     tflops, s.temperature_c ? fmt::format(", {:.0f} C", *s.temperature_c) : "",
                     s.power_w ? fmt::format(", {:.0f} W", *s.power_w) : "");
}

// The load's throughput and size, and the first product against the host reference.
void report_throughput(GpuOutcome& out, int gpu, const BurninGpuResult& r) {
  const std::string g = "burnin.gpu" + std::to_string(gpu) + ".";
  const std::string prec = out.attributes[g + "precision"];
  if (r.tflops.seen() > 0) {
    out.metrics.push_back(
        summarize_metric("burnin." + prec + ".tflops", "TFLOP/s", Direction::higher, gpu, r.tflops.values()));
    out.metrics.push_back(one_value("burnin." + prec + ".tflops_p5", "TFLOP/s", Direction::higher, gpu,
                                    r.tflops.percentile(5)));
  }
  out.metrics.push_back(
      one_value("burnin.gemms", "count", Direction::higher, gpu, static_cast<double>(r.gemms)));
  out.attributes[g + "elapsed_s"] = fmt::format("{:.1f}", r.elapsed_s);
  out.attributes[g + "first_product_check"] = r.first_product.summary();
  if (!r.first_product.passed()) {
    out.findings.push_back(
        Finding{"burnin.wrong_first_product", Severity::fail, gpu,
                "first GEMM product differs from the host reference: " + r.first_product.summary(),
                "drain the node; rerun gemm and memtest, RMA the GPU if wrong results repeat",
                static_cast<double>(r.first_product.wrong)});
    out.add(Status::fail, "wrong first product: " + r.first_product.summary());
  }
}

// Every product against the first, and the memtest passes run between the loads.
void report_correctness(GpuOutcome& out, int gpu, const BurninGpuResult& r) {
  const std::string g = "burnin.gpu" + std::to_string(gpu) + ".";
  out.attributes[g + "result_comparison"] = r.compare.describe();
  if (r.compare.mismatches() > 0) {
    Finding f{"burnin.wrong_result",
              Severity::fail,
              gpu,
              "GEMM output not bit-identical across iterations: " + r.compare.describe(),
              "drain the node; rerun burnin and memtest, RMA the GPU if wrong results repeat",
              static_cast<double>(r.compare.mismatches())};
    out.findings.push_back(f);
    out.add(Status::fail, "wrong result: " + r.compare.describe());
  }
  if (r.memtest_runs > 0) report_memtest(out, "burnin.memtest", gpu, r.memtest);
  out.attributes[g + "memtest_runs"] = std::to_string(r.memtest_runs);
}

// The Xids this GPU raised during the load: each one fails it.
void report_xids(GpuOutcome& out, int gpu, const std::vector<XidEvent>& xid_events) {
  for (const auto& x : xid_events) {
    if (!x.gpu || *x.gpu != gpu) continue;
    Finding f{"burnin.xid." + std::to_string(x.code),
              Severity::fail,
              gpu,
              fmt::format("Xid {} during burn-in at {}", x.code, x.time),
              "drain the node; look the Xid up in NVIDIA's Xid catalogue, reset the GPU or RMA",
              x.code};
    out.findings.push_back(f);
    out.add(Status::fail, fmt::format("Xid {} during burn-in", x.code));
  }
}

// The load on every GPU at once, each at its precision, with a progress line every 10 s. It
// ends at the duration, on SIGTERM, or when the soft budget runs out. Returns each GPU's error.
std::vector<std::string> burn_each_gpu(const CheckContext& ctx, const BurninParams& params,
                                       const std::vector<int>& gpus, const TelemetrySampler& sampler,
                                       std::vector<GpuOutcome>& outcomes,
                                       std::vector<BurninGpuResult>& runs) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto should_stop = [&] {
    return ctx.should_stop() ||
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > ctx.budget_s;
  };
  std::mutex progress_mu;
  return run_on_each_gpu(gpus, [&](std::size_t slot, int gpu) {
    BurninConfig config = params.config;
    config.precision = params.precision.value_or(main_precision(gpu));
    double last_report = -1e9;
    const auto on_window = [&](double elapsed, double tflops) {
      if (!ctx.progress || elapsed - last_report < 10) return;
      last_report = elapsed;
      const auto latest = sampler.latest();
      std::lock_guard<std::mutex> lock(progress_mu);
      ctx.progress(burnin_progress(gpu, elapsed, config.duration_s, tflops, latest[slot]));
    };
    GpuOutcome& out = outcomes[slot];
    out.attributes["burnin.gpu" + std::to_string(gpu) + ".precision"] =
        std::string(to_string(config.precision));
    runs[slot] = run_burnin(config, should_stop, on_window);
  });
}

class Burnin : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    auto start =
        start_gpu_check("burnin", ctx, [](const nlohmann::json& json) { return read_burnin_params(json); });
    if (start.early) return *start.early;
    auto& params = start.params;
    auto& gpus = start.gpus;

    const NvmlSession nvml = NvmlSession::open();
    const std::string side_file = ctx.side_dir.empty() ? "" : ctx.side_dir + "/burnin-telemetry.jsonl";
    TelemetrySampler sampler(nvml, gpus, side_file, params.telemetry_hz);
    XidMonitor xids(ctx.node_gpus);
    const bool xids_watched = xids.start();
    sampler.start();

    CheckResult result;
    result.name = "burnin";
    std::vector<GpuOutcome> outcomes(gpus.size());
    std::vector<BurninGpuResult> runs(gpus.size());
    const auto errors = burn_each_gpu(ctx, params, gpus, sampler, outcomes, runs);
    sampler.stop();
    std::vector<XidEvent> xid_events;
    if (xids_watched) xid_events = xids.stop();
    const auto summaries = sampler.summaries();
    const auto notes = sampler.notes();

    for (std::size_t slot = 0; slot < gpus.size(); ++slot) {
      if (!errors[slot].empty()) continue;  // merge_outcomes makes it this GPU's error
      const int gpu = gpus[slot];
      GpuOutcome& out = outcomes[slot];
      const BurninGpuResult& r = runs[slot];
      report_throughput(out, gpu, r);
      for (const auto& why : burnin_unwatched(summaries[slot].samples(), xids_watched, xids.reason())) {
        out.add(Status::warn, why);
      }
      report_correctness(out, gpu, r);
      if (!notes[slot].empty()) {
        out.attributes["burnin.gpu" + std::to_string(gpu) + ".telemetry_note"] = notes[slot];
      }
      report_telemetry(out, gpu, summaries[slot], params.thresholds);
      report_xids(out, gpu, xid_events);
      if (const auto why =
              burnin_incomplete_reason(r.elapsed_s, params.config.duration_s,
                                       std::min(params.min_duration_s, params.config.duration_s))) {
        out.add(Status::error, *why);
      }
    }
    merge_outcomes(result, gpus, outcomes, errors);
    result.attributes["burnin.duration_s"] = fmt::format("{:.0f}", params.config.duration_s);
    result.attributes["burnin.gemm_size"] = std::to_string(params.config.size);
    result.attributes["burnin.telemetry_hz"] = fmt::format("{}", params.telemetry_hz);
    if (!side_file.empty()) {
      result.attributes["burnin.telemetry_file"] = side_file;
      result.attributes["burnin.telemetry_lines"] = std::to_string(sampler.lines_written());
    }
    result.attributes["burnin.xid_watch"] = xids_watched ? "on" : "off: " + xids.reason();
    start.note_invisible(result, "burnin.gpus_not_visible");
    return result;
  }
};

GPUQUAL_REGISTER_CHECK(
    Burnin, "burnin",
    "sustained tensor-core GEMM with bit-exact result comparison, memtest passes and 1 Hz telemetry");

}  // namespace
}  // namespace gpuqual
