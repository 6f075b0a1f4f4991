// `memtest`: pattern test over >= 90 % of each GPU's free memory, all GPUs at once (one host
// thread each): walking ones/zeros, own address, moving inversions (ones/zeros and seeded
// random), random sequence. Any bad word is `fail` with the finding memtest.bit_errors, naming
// per pattern the first bad addresses, expected and read words and the flipped bits.
// Coverage (core/rules/memtest_coverage.hpp): 0 bytes or less than the target is error; less than
// the configured share of the GPU's total memory (another process holds some) is warn.
// Parameters (suite YAML): fraction_of_free 0.9, passes 1, patterns [all], chunk_mib 1024,
// max_mib 0 (no cap), seed 1.
#include <chrono>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/rules/memtest_coverage.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/memtest/memtest_report.hpp"
#include "device/memtest/memtest_runner.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_check_start.hpp"

namespace gpuqual {
namespace {

MemtestConfig read_memtest_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  MemtestConfig c;
  if (auto v = o.opt_number("fraction_of_free", 0.001, 1.0)) c.fraction_of_free = *v;
  if (auto v = o.opt_integer("passes", 1, 100000)) c.passes = static_cast<std::uint32_t>(*v);
  if (o.has("patterns")) {
    c.patterns.clear();
    for (const auto& name : o.string_array("patterns")) {
      const auto p = parse_memtest_pattern(name);
      if (!p) {
        o.fail("patterns",
               "unknown pattern '" + name +
                   "' (walking_ones, walking_zeros, own_address, moving_inv_ones, moving_inv_random, "
                   "random_sequence)");
      }
      c.patterns.push_back(*p);
    }
    if (c.patterns.empty()) o.fail("patterns", "must name at least one pattern");
  }
  if (auto v = o.opt_integer("chunk_mib", 1, 1 << 20)) c.chunk_bytes = static_cast<std::uint64_t>(*v) << 20;
  if (auto v = o.opt_integer("max_mib", 0, 1 << 30)) c.max_bytes = static_cast<std::uint64_t>(*v) << 20;
  if (auto v = o.opt_integer("seed", 0, std::numeric_limits<std::int64_t>::max()))
    c.seed = static_cast<std::uint64_t>(*v);
  o.finish();
  return c;
}

class Memtest : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    auto start =
        start_gpu_check("memtest", ctx, [](const nlohmann::json& json) { return read_memtest_params(json); });
    if (start.early) return *start.early;
    auto& config = start.params;
    auto& gpus = start.gpus;

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(ctx.budget_s);
    const auto should_stop = [&] {
      if (ctx.should_stop()) return true;
      return std::chrono::steady_clock::now() > deadline;
    };
    CheckResult result;
    result.name = "memtest";
    std::vector<GpuOutcome> outcomes(gpus.size());
    const auto errors = run_on_each_gpu(gpus, [&](std::size_t slot, int gpu) {
      GpuOutcome& out = outcomes[slot];
      if (ctx.progress) ctx.progress("memtest gpu " + std::to_string(gpu) + ": started");
      const MemtestRunResult run = run_memtest(config, should_stop);
      report_memtest(out, "memtest", gpu, run);
      // How much of the GPU was covered (core/rules/memtest_coverage.hpp): 0 bytes or short of the
      // target is error; memory held by another process left untested is warn.
      const MemtestCoverage coverage = judge_memtest_coverage(
          MemtestCoverageInput{run.total_bytes, run.free_bytes, run.target_bytes, run.bytes_tested,
                               config.fraction_of_free, config.max_bytes != 0, run.allocation_note});
      if (coverage.status != Status::pass) out.add(coverage.status, coverage.reason);
      if (run.passes_completed < config.passes) {
        out.add(Status::error,
                "stopped after " + std::to_string(run.passes_completed) + " of " +
                    std::to_string(config.passes) + " passes (" +
                    (ctx.should_stop() ? "run stopped"
                                       : "budget of " + std::to_string(ctx.budget_s) + " s spent") +
                    ")");
      }
    });
    merge_outcomes(result, gpus, outcomes, errors);
    result.attributes["memtest.seed"] = std::to_string(config.seed);
    result.attributes["memtest.fraction_of_free"] = std::to_string(config.fraction_of_free);
    std::string names;
    for (auto p : config.patterns) names += (names.empty() ? "" : ",") + std::string(to_string(p));
    result.attributes["memtest.patterns"] = names;
    start.note_invisible(result, "memtest.gpus_not_visible");
    return result;
  }
};

GPUQUAL_REGISTER_CHECK(Memtest, "memtest",
                       "device memory pattern test (walking bits, own address, moving inversions, random) "
                       "over 90% of free memory");

}  // namespace
}  // namespace gpuqual
