// `nccl_allreduce`: NCCL all-reduce over every selected GPU of the node, in one process (one
// host thread, grouped calls; device/nccl_allreduce/nccl_allreduce_runner.hpp says why). Per data type,
// placement and size: time (us), algbw and busbw (GB/s) as node-scope metrics named by size,
// e.g. nccl.allreduce.float.512MiB.busbw_gbps (.inplace before the quantity for in-place);
// then `check_iters` fresh all-reduces checked element by element on every GPU (a wrong element
// is `fail` with the finding nccl.wrong_result and the count). Non-blocking communicators and
// deadline waits: a hang is `error` ("timed out after N s"), communicators aborted. Fewer than
// 2 GPUs: `skip`. Parameters: device/nccl_allreduce/nccl_allreduce_params.hpp.
#include <nccl.h>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/measure/measure_report.hpp"
#include "device/nccl/nccl_error.hpp"
#include "device/nccl_allreduce/nccl_allreduce_bench.hpp"
#include "device/nccl_allreduce/nccl_allreduce_result.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_check_start.hpp"
#include "suites/gpu_partition_inputs.hpp"

namespace gpuqual {
namespace {

class NcclAllreduceBench : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    // NCCL does not run between MIG devices (docs/mig.md): not applicable, before CUDA is asked.
    if (auto skip = partition_skip(kNcclAllreduceCheck, ctx, /*vgpu_applies=*/false)) return *skip;
    auto start = start_gpu_check(kNcclAllreduceCheck, ctx, [](const nlohmann::json& json) {
      return read_allreduce_params(json, "suite");
    });
    if (start.early) return *start.early;
    auto& params = start.params;
    auto& probe = start.probe;
    auto& gpus = start.gpus;
    auto& invisible = start.invisible;
    if (gpus.size() < 2) {
      std::string reason =
          "an all-reduce needs at least 2 GPUs; " + std::to_string(gpus.size()) + " selected";
      if (!invisible.empty()) reason += " (" + invisible_reason(invisible, probe.device_count) + ")";
      // Not applicable only on a node with one GPU (see p2p.cpp).
      const bool single = invisible.empty() && probe.device_count < 2;
      return unmeasurable(kNcclAllreduceCheck, Status::skip, reason, single ? "single_gpu" : "");
    }

    AllreduceBenchSetup setup;
    setup.gpus = gpus;
    setup.record_gpus = gpus;
    for (std::size_t k = 0; k < gpus.size(); ++k) setup.ranks.push_back(static_cast<int>(k));
    setup.nranks = static_cast<int>(gpus.size());
    try {
      NCCL_CHECK(ncclGetUniqueId(&setup.id));
    } catch (const std::exception& e) {
      return unmeasurable(kNcclAllreduceCheck, Status::error, e.what());
    }
    LocalRankSync sync;
    setup.sync = &sync;
    setup.budget_s = ctx.budget_s;
    setup.should_stop = [&ctx] { return ctx.should_stop(); };
    setup.progress = ctx.progress;

    AllreduceBenchOutcome out = run_allreduce_bench(params, setup);
    std::vector<std::string> errors;
    if (!out.local_error.empty()) errors.push_back(out.local_error);
    CheckResult result = allreduce_check_result(out, out.gpus, errors);
    start.note_invisible(result, "nccl.gpus_not_visible");
    return result;
  }
};

GPUQUAL_REGISTER_CHECK(
    NcclAllreduceBench, "nccl_allreduce",
    "NCCL all-reduce over the node's GPUs: time, algbw and busbw per size, every result verified");

}  // namespace
}  // namespace gpuqual
