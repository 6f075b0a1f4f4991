// `pcie`: host<->device copies through the copy engines from pinned host memory (placed on the
// GPU's NUMA node when sysfs names one), in GB/s: each GPU alone (host-to-device, device-to-host,
// both at once), then every GPU at once (node-scope metrics pcie.all.*, the host-side limit).
// Every copy carries a seeded pattern checked word for word; corruption is `fail` with the
// finding pcie.corrupt_copy. Parameters (suite YAML): size_mib (256, at least that), directions
// [h2d, d2h, bidir], all_gpus_at_once true, numa_placement true, and the common keys.
#include <cuda_runtime_api.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "device/measure/measure_clock_probe.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/measure/measure_params.hpp"
#include "device/measure/measure_report.hpp"
#include "device/nvml/nvml_library.hpp"
#include "device/pcie/pcie_runner.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_check_start.hpp"

namespace gpuqual {
namespace {

struct PcieParams {
  PcieConfig config;
  std::vector<CopyDirection> directions = all_copy_directions();
  bool all_gpus = true;
  CommonBenchParams common;
};

PcieParams read_pcie_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  PcieParams p;
  if (auto v = o.opt_integer("size_mib", static_cast<std::int64_t>(kPcieMinBytes >> 20), 65536)) {
    p.config.bytes = static_cast<std::uint64_t>(*v) << 20;
  }
  if (o.has("directions")) {
    p.directions.clear();
    for (const auto& name : o.string_array("directions")) {
      const auto d = parse_copy_direction(name);
      if (!d) o.fail("directions", "unknown direction '" + name + "' (h2d, d2h, bidir)");
      p.directions.push_back(*d);
    }
    if (p.directions.empty()) o.fail("directions", "must name at least one direction");
  }
  if (auto v = o.opt_boolean("all_gpus_at_once")) p.all_gpus = *v;
  if (auto v = o.opt_boolean("numa_placement")) p.config.numa_placement = *v;
  MeasureConfig defaults;
  defaults.min_sample_s = 0.01;
  p.common = read_common_bench_params(o, defaults);
  p.config.seed = p.common.seed;
  o.finish();
  return p;
}

Finding corrupt_copy_finding(std::optional<int> gpu, const std::string& detail) {
  return Finding{
      .code = "pcie.corrupt_copy",
      .severity = Severity::fail,
      .gpu = gpu,
      .detail = detail,
      .action =
          "drain the node; check the PCIe link (replays, AER errors), the riser and the GPU; RMA if it "
          "repeats",
  };
}

class PcieBenchCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    auto start =
        start_gpu_check("pcie", ctx, [](const nlohmann::json& json) { return read_pcie_params(json); });
    if (start.early) return *start.early;
    auto& params = start.params;
    auto& gpus = start.gpus;

    const bool node_wide = params.all_gpus && gpus.size() >= 2;
    const int measurements = static_cast<int>(params.directions.size() * (gpus.size() + (node_wide ? 1 : 0)));
    params.config.measure = params.common.measure;
    params.config.measure.budget_s = share_budget(ctx.budget_s, measurements, params.common.measure_budget_s);
    const NvmlSession nvml = NvmlSession::open();
    const auto should_stop = [&ctx] { return ctx.should_stop(); };

    // Set-up in parallel, each on a thread bound to its GPU's NUMA node (first-touch placement).
    std::vector<std::unique_ptr<PcieBench>> benches(gpus.size());
    std::vector<GpuOutcome> outcomes(gpus.size());
    auto setup_errors = run_on_each_gpu(gpus, [&](std::size_t slot, int gpu) {
      benches[slot] = std::make_unique<PcieBench>(gpu, params.config);
      const std::string g = "pcie.gpu" + std::to_string(gpu) + ".";
      outcomes[slot].attributes[g + "host_placement"] = benches[slot]->placement();
      if (auto node = benches[slot]->numa_node())
        outcomes[slot].attributes[g + "numa_node"] = std::to_string(*node);
    });

    // Each GPU alone, one after the other: together they would share the host's limits.
    for (std::size_t slot = 0; slot < gpus.size(); ++slot) {
      if (!setup_errors[slot].empty() || !benches[slot]) continue;
      const int gpu = gpus[slot];
      GpuOutcome& out = outcomes[slot];
      try {
        CUDA_CHECK(cudaSetDevice(gpu));
        std::string probe_note;
        const MeasureHooks hooks{{}, make_nvml_clock_probe(nvml, gpu, &probe_note), should_stop};
        for (CopyDirection d : params.directions) {
          const CopyResult r = benches[slot]->run(d, hooks);
          report(out, gpu, r, params.config.measure);
        }
      } catch (const std::exception& e) {
        out.add(Status::error, e.what());
      }
    }

    CheckResult result;
    result.name = "pcie";
    GpuOutcome node;  // node scope: every GPU at once
    if (node_wide)
      measure_all(node, benches, params, should_stop);
    else
      node.attributes["pcie.all"] =
          params.all_gpus ? "not measured: one GPU" : "not measured: all_gpus_at_once is false";

    // Tear down on per-GPU threads, each with its device current.
    (void)run_on_each_gpu(gpus, [&](std::size_t slot, int) { benches[slot].reset(); });
    merge_outcomes(result, gpus, outcomes, setup_errors);
    for (auto& m : node.metrics) result.metrics.push_back(std::move(m));
    for (auto& f : node.findings) result.findings.push_back(std::move(f));
    for (auto& [k, v] : node.attributes) result.attributes[k] = v;
    result.status = worse_of(result.status, node.status);
    for (const auto& n : node.notes)
      result.reason += (result.reason.empty() ? "" : "; ") + ("all GPUs at once: " + n);
    result.attributes["pcie.bytes_per_copy"] = std::to_string(params.config.bytes);
    result.attributes["pcie.accounting"] = "GB/s = 1e9 bytes/s; bidir counts both directions";
    start.note_invisible(result, "pcie.gpus_not_visible");
    return result;
  }

 private:
  static void report(GpuOutcome& out, int gpu, const CopyResult& r, const MeasureConfig& mc) {
    const std::string name(to_string(r.direction));
    out.metrics.push_back(
        rate_metric(pcie_metric_name(r.direction), "GB/s", gpu, r.measure, r.bytes_per_op, 1e9));
    record_measurement_attributes(out, "pcie." + name, gpu, r.measure);
    if (!r.ok()) {
      auto f = corrupt_copy_finding(gpu, name + ": " + r.problem);
      f.value = static_cast<double>(r.mismatches);
      out.findings.push_back(f);
      out.add(Status::fail, name + ": corrupt copy: " + r.problem);
      return;
    }
    std::string why;
    const Status s = measurement_status(r.measure, mc, &why);
    if (s != Status::pass) out.add(s, name + ": " + why);
  }

  // Node scope: every GPU copying at once, from this thread, timed on the host clock.
  static void measure_all(GpuOutcome& node, std::vector<std::unique_ptr<PcieBench>>& benches,
                          const PcieParams& params, const std::function<bool()>& should_stop) {
    std::vector<PcieBench*> ready;
    for (auto& b : benches)
      if (b) ready.push_back(b.get());
    if (ready.size() < 2) {
      node.attributes["pcie.all"] = "not measured: fewer than two GPUs were set up";
      return;
    }
    node.attributes["pcie.all.gpus"] = std::to_string(ready.size());
    try {
      const MeasureHooks hooks{{}, {}, should_stop};
      for (CopyDirection d : params.directions) {
        const CopyResult r = run_pcie_all(ready, d, params.config.measure, hooks);
        const std::string name(to_string(d));
        node.metrics.push_back(
            rate_metric(pcie_all_metric_name(d), "GB/s", std::nullopt, r.measure, r.bytes_per_op, 1e9));
        if (!r.ok()) {
          auto f = corrupt_copy_finding(std::nullopt, "all GPUs at once, " + name + ": " + r.problem);
          f.value = static_cast<double>(r.mismatches);
          node.findings.push_back(f);
          node.add(Status::fail, name + ": corrupt copy: " + r.problem);
          continue;
        }
        std::string why;
        const Status s = measurement_status(r.measure, params.config.measure, &why);
        if (s != Status::pass) node.add(s, name + ": " + why);
      }
    } catch (const std::exception& e) {
      node.add(Status::error, e.what());
    }
  }
};

GPUQUAL_REGISTER_CHECK(PcieBenchCheck, "pcie",
                       "PCIe host<->device copy bandwidth per GPU and all GPUs at once, pattern-verified");

}  // namespace
}  // namespace gpuqual
