// `gemm`: dense matrix products through cuBLASLt at every precision the GPU has, in TFLOP/s
// (TOP/s for INT8), each answer checked against a host reference. A wrong answer is `fail`
// with the finding gemm.wrong_result, whatever the speed. Precisions the GPU lacks are skipped
// with the reason. Parameters (suite YAML): sizes [8192], precisions [all], verify_samples 256,
// and the common measurement keys (device/measure/measure_params.hpp).
#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "device/cuda/cuda_error.hpp"
#include "device/gemm/gemm_runner.hpp"
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

struct GemmParams {
  std::vector<std::uint64_t> sizes{kGemmCanonicalSize};
  std::vector<GemmPrecision> precisions = all_gemm_precisions();
  int verify_samples = 256;
  CommonBenchParams common;
};

GemmParams read_gemm_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  GemmParams p;
  if (o.has("sizes")) {
    p.sizes.clear();
    const auto& arr = o.array("sizes");
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const auto where = JsonObject::index_path(o.child_path("sizes"), i);
      if (!arr[i].is_number_integer()) throw InputError("suite", where, "expected an integer matrix size");
      const auto n = arr[i].get<std::int64_t>();
      if (n < 256 || n > 32768 || n % 16 != 0) {
        throw InputError("suite", where,
                         "size " + std::to_string(n) + " must be a multiple of 16 in [256, 32768]");
      }
      p.sizes.push_back(static_cast<std::uint64_t>(n));
    }
    if (p.sizes.empty()) o.fail("sizes", "must name at least one size");
  }
  if (o.has("precisions")) {
    p.precisions.clear();
    for (const auto& name : o.string_array("precisions")) {
      const auto prec = parse_gemm_precision(name);
      if (!prec)
        o.fail("precisions", "unknown precision '" + name + "' (fp64, fp32, tf32, fp16, bf16, fp8, int8)");
      p.precisions.push_back(*prec);
    }
    if (p.precisions.empty()) o.fail("precisions", "must name at least one precision");
  }
  if (auto v = o.opt_integer("verify_samples", 4, 65536)) p.verify_samples = static_cast<int>(*v);
  MeasureConfig defaults;
  defaults.min_sample_s = 0.01;  // >= 10 ms per sample: several GEMMs at 8192
  defaults.warmup_s = kDenseGemmWarmupS;
  p.common = read_common_bench_params(o, defaults);
  o.finish();
  return p;
}

class GemmBench : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    auto start =
        start_gpu_check("gemm", ctx, [](const nlohmann::json& json) { return read_gemm_params(json); });
    if (start.early) return *start.early;
    auto& params = start.params;
    auto& gpus = start.gpus;
    CheckResult result;
    result.name = "gemm";

    const NvmlSession nvml = NvmlSession::open();
    const int measurements = static_cast<int>(params.sizes.size() * params.precisions.size());
    MeasureConfig mc = params.common.measure;
    mc.budget_s = share_budget(ctx.budget_s, measurements, params.common.measure_budget_s);

    std::vector<GpuOutcome> outcomes(gpus.size());
    const auto errors = run_on_each_gpu(gpus, [&](std::size_t slot, int gpu) {
      GpuOutcome& out = outcomes[slot];
      cudaDeviceProp prop{};
      CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu));
      const ComputeCapability cc{prop.major, prop.minor};
      std::string probe_note;
      const MeasureHooks hooks{
          {}, make_nvml_clock_probe(nvml, gpu, &probe_note), [&ctx] { return ctx.should_stop(); }};
      if (!probe_note.empty()) out.attributes["gemm.clock_probe"] = "not read: " + probe_note;
      int ran = 0;
      struct Step {
        std::uint64_t size;
        GemmPrecision precision;
        std::string label;
      };
      std::vector<Step> steps;
      for (std::uint64_t size : params.sizes) {
        for (GemmPrecision p : params.precisions) {
          const std::string label =
              std::string(to_string(p)) + (size == kGemmCanonicalSize ? "" : " n" + std::to_string(size));
          if (auto why = gemm_skip_reason(p, cc)) {
            out.notes.push_back(label + " skipped: " + *why);
            out.attributes["gemm." + std::string(to_string(p)) + ".skipped"] = *why;
            continue;
          }
          steps.push_back({size, p, label});
        }
      }
      // A sticky CUDA error (illegal address, launch failure) ends this GPU's loop: it is
      // reported once, with the number of measurements it left unrun.
      run_gpu_steps(
          steps.size(),
          [&](std::size_t i) {
            const Step& st = steps[i];
            if (ctx.should_stop()) {
              out.add(Status::error, st.label + ": not measured, the run is being stopped");
              return;
            }
            GemmRunConfig rc;
            rc.precision = st.precision;
            rc.size = st.size;
            rc.seed = params.common.seed;
            rc.verify_samples = params.verify_samples;
            rc.measure = mc;
            const GemmRunResult r = run_gemm(rc, hooks);
            ++ran;
            report_gemm(out, gpu, st.label, rc, r, mc);
          },
          [&](std::size_t i, const std::string& what, std::size_t) {
            out.add(Status::error, steps[i].label + ": " + what);
          });
      if (ran == 0 && out.status == Status::pass) {
        // Every requested precision is missing from this architecture (FP8 before sm_89): not
        // applicable, unlike a GEMM that could not run.
        out.add(Status::skip, "no requested precision runs on this GPU");
        out.reason_code = "precision_unsupported";
      }
    });
    merge_outcomes(result, gpus, outcomes, errors);
    result.attributes["gemm.sizes"] = join_numbers(params.sizes);
    result.attributes["gemm.seed"] = std::to_string(params.common.seed);
    result.attributes["gemm.layout"] = "TN (A transposed), column-major, alpha=1 beta=0";
    start.note_invisible(result, "gemm.gpus_not_visible");
    return result;
  }

 private:
  static void report_gemm(GpuOutcome& out, int gpu, const std::string& label, const GemmRunConfig& rc,
                          const GemmRunResult& r, const MeasureConfig& mc) {
    const std::string key = "gemm." + std::string(to_string(rc.precision)) +
                            (rc.size == kGemmCanonicalSize ? "" : ".n" + std::to_string(rc.size));
    out.metrics.push_back(rate_metric(gemm_metric_name(rc.precision, rc.size), gemm_metric_unit(rc.precision),
                                      gpu, r.measure, r.flops_per_op, 1e12));
    // Per GPU: one GPU may fall back to cublasGemmEx where another found a cuBLASLt algorithm.
    out.attributes[key + ".gpu" + std::to_string(gpu) + ".library"] = r.library;
    record_measurement_attributes(out, key, gpu, r.measure);
    if (!r.check.passed()) {
      out.findings.push_back(Finding{
          .code = "gemm.wrong_result",
          .severity = Severity::fail,
          .gpu = gpu,
          .detail = label + " GEMM " + std::to_string(rc.size) + "^3: " + r.check.summary(),
          .action = "drain the node; rerun gemm and memtest, and RMA the GPU if the wrong answers repeat",
          .value = r.check.wrong,
      });
      out.add(Status::fail, label + ": wrong result: " + r.check.summary());
      return;
    }
    std::string why;
    const Status s = measurement_status(r.measure, mc, &why);
    if (s != Status::pass) out.add(s, label + ": " + why);
  }
};

GPUQUAL_REGISTER_CHECK(
    GemmBench, "gemm",
    "dense GEMM TFLOP/s via cuBLASLt at FP64/FP32/TF32/FP16/BF16/FP8/INT8, answers verified");

}  // namespace
}  // namespace gpuqual
