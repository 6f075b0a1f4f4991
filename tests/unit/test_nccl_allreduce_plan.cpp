// All-reduce sizes, labels, metric names, nccl-tests' bandwidth formulas, and the strict
// parameter reader shared by the suite check and `gpuqual nccl`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/units.hpp"
#include "device/measure/measure_timers.hpp"
#include "device/nccl_allreduce/nccl_allreduce_params.hpp"
#include "device/nccl_allreduce/nccl_allreduce_plan.hpp"

namespace gpuqual {
namespace {

constexpr std::uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

TEST(NcclSizes, ParsesBinaryUnitsAndBytes) {
  EXPECT_EQ(parse_size_bytes("8K"), 8 * KiB);
  EXPECT_EQ(parse_size_bytes("8k"), 8 * KiB);
  EXPECT_EQ(parse_size_bytes("8KiB"), 8 * KiB);
  EXPECT_EQ(parse_size_bytes("64M"), 64 * MiB);
  EXPECT_EQ(parse_size_bytes("64MiB"), 64 * MiB);
  EXPECT_EQ(parse_size_bytes("512m"), 512 * MiB);
  EXPECT_EQ(parse_size_bytes("2G"), 2 * GiB);
  EXPECT_EQ(parse_size_bytes("2GiB"), 2 * GiB);
  EXPECT_EQ(parse_size_bytes("4096"), 4096u);
  EXPECT_EQ(parse_size_bytes("4096B"), 4096u);
}

TEST(NcclSizes, RejectsWhatIsNotASize) {
  for (const char* bad :
       {"", "M", "64MB", "64 M", "-1", "1.5G", "2T", "64Mi", "0x10", "8b", "99999999999G"}) {
    EXPECT_FALSE(parse_size_bytes(bad).has_value()) << bad;
  }
}

TEST(NcclSizes, LabelsUseTheLargestExactUnit) {
  EXPECT_EQ(size_label(8 * KiB), "8KiB");
  EXPECT_EQ(size_label(64 * MiB), "64MiB");
  EXPECT_EQ(size_label(512 * MiB), "512MiB");
  EXPECT_EQ(size_label(2 * GiB), "2GiB");
  EXPECT_EQ(size_label(1536 * KiB), "1536KiB");
  EXPECT_EQ(size_label(3 * GiB / 2), "1536MiB");
  EXPECT_EQ(size_label(1000), "1000B");
  EXPECT_EQ(size_label(4), "4B");
}

TEST(NcclBandwidth, FollowsTheNcclTestsConvention) {
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(8), 1.75);
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(16), 1.875);
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(1), 0.0);
  // 2 GiB in 10 ms: 214.748 GB/s of data; on 8 ranks each moved 1.75x that over the bus.
  EXPECT_NEAR(algbw_gbps(2.0 * GiB, 0.010), 214.7483648, 1e-6);
  EXPECT_NEAR(busbw_gbps(2.0 * GiB, 0.010, 8), 214.7483648 * 1.75, 1e-6);
  // Public figures (docs/performance.md): 8x H200 at ~475 GB/s busbw is ~271 GB/s algbw, 7.9 ms for 2 GiB.
  const double t = 2.0 * GiB / (475e9 / 1.75);
  EXPECT_NEAR(busbw_gbps(2.0 * GiB, t, 8), 475.0, 1e-9);
}

TEST(NcclMetricNames, NamedPerTypeSizeAndPlacementWithKnownUnits) {
  const AllreduceItem oop{ReduceType::f32, 512 * MiB, false};
  const AllreduceItem inplace{ReduceType::bf16, 8 * KiB, true};
  EXPECT_EQ(allreduce_metric_prefix(oop) + ".busbw_gbps", "nccl.allreduce.float.512MiB.busbw_gbps");
  EXPECT_EQ(allreduce_metric_prefix(inplace) + ".time_us", "nccl.allreduce.bf16.8KiB.inplace.time_us");
  EXPECT_EQ(allreduce_item_label(inplace), "bf16 8KiB in-place");
  EXPECT_EQ(oop.count(), 128 * MiB);
  EXPECT_EQ(inplace.count(), 4 * KiB);
  EXPECT_TRUE(is_known_unit("GB/s"));
  EXPECT_TRUE(is_known_unit("us"));
}

TEST(NcclParams, DefaultsAreTheCanarySweep) {
  const AllreduceParams p = read_allreduce_params(nlohmann::json::object(), "suite");
  EXPECT_EQ(p.sizes, (std::vector<std::uint64_t>{8 * KiB, 64 * MiB, 512 * MiB, 2 * GiB}));
  EXPECT_EQ(p.types, (std::vector<ReduceType>{ReduceType::f32, ReduceType::bf16}));
  EXPECT_EQ(p.in_place, (std::vector<bool>{false, true}));
  EXPECT_EQ(p.check_iters, 5);
  EXPECT_EQ(p.timeout_s, 60);
  EXPECT_EQ(p.max_bytes(), 2 * GiB);
  const auto items = p.items();
  ASSERT_EQ(items.size(), 16u);
  EXPECT_EQ(allreduce_item_label(items.front()), "float 8KiB out-of-place");
  EXPECT_EQ(allreduce_item_label(items.back()), "bf16 2GiB in-place");
}

TEST(NcclParams, ReadsTheShippedSuiteParams) {
  // suites/standard.yaml's sizes, with the optional keys too.
  const auto j = nlohmann::json::parse(
      R"({"sizes": ["8KiB", "1MiB", "64MiB", "512MiB", "2GiB", "8GiB"], "dtypes": ["float", "bf16"],
          "check_iters": 20, "placements": ["in_place"], "timeout_s": 30, "seed": 9, "target_cv": 0.01})");
  const AllreduceParams p = read_allreduce_params(j, "suite");
  EXPECT_EQ(p.sizes.back(), 8 * GiB);
  EXPECT_EQ(p.check_iters, 20);
  EXPECT_EQ(p.in_place, std::vector<bool>{true});
  EXPECT_EQ(p.timeout_s, 30);
  EXPECT_EQ(p.common.seed, 9u);
  EXPECT_EQ(p.common.measure.target_cv, 0.01);
  EXPECT_EQ(read_allreduce_params(nlohmann::json{{"sizes", {4096, "2G"}}}, "suite").sizes,
            (std::vector<std::uint64_t>{4096, 2 * GiB}));
}

TEST(NcclParams, BadValuesNameTheKey) {
  struct Case {
    const char* json;
    const char* where;
  };
  const Case cases[] = {
      {R"({"sizes": ["64MB"]})", "$.params.sizes[0]"},
      {R"({"sizes": [6]})", "$.params.sizes[0]"},
      {R"({"sizes": [-8]})", "$.params.sizes[0]"},
      {R"({"sizes": ["64M", "64MiB"]})", "$.params.sizes[1]"},
      {R"({"sizes": ["128G"]})", "$.params.sizes[0]"},
      {R"({"sizes": []})", "$.params.sizes"},
      {R"({"sizes": [true]})", "$.params.sizes[0]"},
      {R"({"dtypes": ["fp16"]})", "$.params.dtypes[0]"},
      {R"({"dtypes": ["bf16", "bfloat16"]})", "$.params.dtypes[1]"},
      {R"({"placements": ["both"]})", "$.params.placements[0]"},
      {R"({"check_iters": 0})", "$.params.check_iters"},
      {R"({"timeout_s": 0})", "$.params.timeout_s"},
      {R"({"size": ["8K"]})", "$.params.size"},
  };
  for (const auto& c : cases) {
    try {
      (void)read_allreduce_params(nlohmann::json::parse(c.json), "suite");
      ADD_FAILURE() << "accepted " << c.json;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "suite") << c.json;
      EXPECT_EQ(e.where(), c.where) << c.json << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace gpuqual

namespace gpuqual {
namespace {

// Small messages are timed as one CUDA graph of the sample's all-reduces (host enqueue of the
// non-blocking communicators outside the interval); large ones eagerly; a failed capture falls
// back to eager.
TEST(NcclTiming, SmallMessagesAreTimedAsACapturedGraph) {
  EXPECT_EQ(allreduce_timing(8 << 10, false), AllreduceTiming::graph);      // the canary's 8 KiB
  EXPECT_EQ(allreduce_timing(16ULL << 20, false), AllreduceTiming::graph);  // the limit itself
  EXPECT_EQ(allreduce_timing((16ULL << 20) + 1, false), AllreduceTiming::eager);
  EXPECT_EQ(allreduce_timing(64ULL << 20, false), AllreduceTiming::eager);
  EXPECT_EQ(allreduce_timing(2ULL << 30, false), AllreduceTiming::eager);
  EXPECT_EQ(allreduce_timing(8 << 10, true), AllreduceTiming::eager);  // capture failed here before
  EXPECT_EQ(to_string(AllreduceTiming::graph), "graph");
  EXPECT_EQ(to_string(AllreduceTiming::eager), "eager");
}

// One timed batch (enqueue_timed_batch in device/measure/measure_timers.hpp): an untimed run of the
// same kind, the start event, the batch, the stop event. A graph holds the sample's all-reduces,
// so it is one launch; eager enqueues each.
TEST(NcclTiming, ABatchIsOneGraphLaunchOrEachAllReduceBehindAnUntimedRun) {
  EXPECT_EQ(allreduce_runs_per_batch(AllreduceTiming::graph, 40), 1);
  EXPECT_EQ(allreduce_runs_per_batch(AllreduceTiming::eager, 40), 40);
  std::string order;
  enqueue_timed_batch(
      allreduce_runs_per_batch(AllreduceTiming::graph, 40), [&] { order += "G"; }, [&] { order += "["; },
      [&] { order += "]"; });
  EXPECT_EQ(order, "G[G]");  // the start event never waits on an idle stream
}

}  // namespace
}  // namespace gpuqual
