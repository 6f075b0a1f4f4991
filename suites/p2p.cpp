// `p2p`: peer copies between pairs of GPUs (cudaMemcpyPeerAsync), one direction for each
// ordered pair and both at once for each unordered pair, in GB/s; the pairs are the ring over
// the GPUs (`pairs: ring`, the default: n copies, see ring_ordered_pairs) or every pair
// (`pairs: all`, n(n-1), what `standard` runs), with the peer-access state of
// each pair recorded. Pairs run one at a time (a pair alone on its links). Every copy is checked
// against its source's pattern; corruption is `fail` with the finding p2p.corrupt_copy. Fewer
// than two GPUs is `skip`. Parameters: size_mib (256, at least that), bidirectional true,
// pairs (ring | all), and the common measurement keys.
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/measure/measure_params.hpp"
#include "device/measure/measure_report.hpp"
#include "device/pcie/p2p_runner.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_check_start.hpp"
#include "suites/gpu_partition_inputs.hpp"

namespace gpuqual {
namespace {

struct P2pParams {
  P2pConfig config;
  bool bidirectional = true;
  bool all_pairs = false;  // `pairs: all`; the default ring
  CommonBenchParams common;
};

P2pParams read_p2p_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  P2pParams p;
  if (auto v = o.opt_integer("size_mib", static_cast<std::int64_t>(kPcieMinBytes >> 20), 16384)) {
    p.config.bytes = static_cast<std::uint64_t>(*v) << 20;
  }
  if (auto v = o.opt_boolean("bidirectional")) p.bidirectional = *v;
  const std::string pairs = o.str_or("pairs", "ring");
  if (pairs != "ring" && pairs != "all") o.fail("pairs", "must be ring or all, not '" + pairs + "'");
  p.all_pairs = pairs == "all";
  MeasureConfig defaults;
  defaults.min_sample_s = 0.005;
  p.common = read_common_bench_params(o, defaults);
  p.config.seed = p.common.seed;
  o.finish();
  return p;
}

class P2pBench : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    auto start =
        start_gpu_check("p2p", ctx, [](const nlohmann::json& json) { return read_p2p_params(json); });
    if (start.early) return *start.early;
    auto& params = start.params;
    auto& probe = start.probe;
    auto& gpus = start.gpus;
    auto& invisible = start.invisible;
    if (gpus.size() < 2) {
      // Not applicable only on a node that has one GPU; fewer selected or visible than the node
      // has is a skip that could not measure.
      const bool single = invisible.empty() && probe.device_count < 2;
      return unmeasurable("p2p", Status::skip,
                          "peer copies need at least 2 GPUs; " + std::to_string(gpus.size()) + " selected",
                          single ? "single_gpu" : "");
    }
    const auto ordered = params.all_pairs ? ordered_pairs(gpus) : ring_ordered_pairs(gpus);
    const auto unordered = params.all_pairs ? unordered_pairs(gpus) : ring_unordered_pairs(gpus);
    const int measurements = static_cast<int>(ordered.size() + (params.bidirectional ? unordered.size() : 0));
    params.config.measure = params.common.measure;
    params.config.measure.budget_s = share_budget(ctx.budget_s, measurements, params.common.measure_budget_s);

    CheckResult result;
    result.name = "p2p";
    std::vector<GpuOutcome> outcomes(gpus.size());
    std::map<int, std::size_t> slot_of;
    for (std::size_t s = 0; s < gpus.size(); ++s) slot_of[gpus[s]] = s;
    std::vector<std::string> errors(gpus.size());
    try {
      for (const auto& a : enable_peer_access(gpus)) {
        const std::string key = "p2p.access." + std::to_string(a.from) + "_" + std::to_string(a.to);
        result.attributes[key] =
            a.enabled ? "enabled" : (a.can_access ? "failed: " + a.note : "none: " + a.note);
      }
      std::map<int, std::unique_ptr<P2pEndpoint>> ends;
      for (int g : gpus) ends[g] = std::make_unique<P2pEndpoint>(g, params.config);
      const MeasureHooks hooks{{}, {}, [&ctx] { return ctx.should_stop(); }};
      auto run_pair = [&](int from, int to, bool bidir) {
        GpuOutcome& out = outcomes[slot_of[from]];
        const std::string label = std::to_string(from) + (bidir ? "<->" : "->") + std::to_string(to);
        try {
          const CopyResult r = run_p2p_pair(*ends[from], *ends[to], bidir, params.config, hooks);
          out.metrics.push_back(
              rate_metric(p2p_metric_name(bidir, from, to), "GB/s", from, r.measure, r.bytes_per_op, 1e9));
          record_measurement_attributes(out,
                                        std::string("p2p.") + (bidir ? "bidir." : "uni.") +
                                            std::to_string(from) + "_" + std::to_string(to),
                                        from, r.measure);
          if (!r.ok()) {
            out.findings.push_back(Finding{
                .code = "p2p.corrupt_copy",
                .severity = Severity::fail,
                .gpu = from,
                .detail = label + ": " + r.problem,
                .action =
                    "drain the node; check NVLink/NVSwitch error counters and the GPUs; RMA if it repeats",
                .value = static_cast<double>(r.mismatches),
            });
            out.add(Status::fail, label + ": corrupt copy: " + r.problem);
            return;
          }
          std::string why;
          const Status s = measurement_status(r.measure, params.config.measure, &why);
          if (s != Status::pass) out.add(s, label + ": " + why);
        } catch (const std::exception& e) {
          out.add(Status::error, label + ": " + e.what());
        }
      };
      for (auto [from, to] : ordered) run_pair(from, to, false);
      if (params.bidirectional)
        for (auto [a, b] : unordered) run_pair(a, b, true);
    } catch (const std::exception& e) {
      for (auto& err : errors) err = e.what();
    }
    merge_outcomes(result, gpus, outcomes, errors);
    result.attributes["p2p.bytes_per_copy"] = std::to_string(params.config.bytes);
    result.attributes["p2p.pairs"] = params.all_pairs ? "all" : "ring";
    start.note_invisible(result, "p2p.gpus_not_visible");
    return result;
  }
};

// MIG devices and vGPUs have no peer access (docs/mig.md): not applicable, before CUDA is asked.
class P2pCheck : public P2pBench {
 public:
  CheckResult run(const CheckContext& ctx) override {
    if (auto skip = partition_skip("p2p", ctx, /*vgpu_applies=*/true)) return *skip;
    return P2pBench::run(ctx);
  }
};

GPUQUAL_REGISTER_CHECK(
    P2pCheck, "p2p",
    "GPU peer-to-peer copy bandwidth on the ring of GPUs (or every pair), uni- and bidirectional, verified");

}  // namespace
}  // namespace gpuqual
