// NCCL all-reduce on real GPUs (2 or more; skips otherwise, with the reason): every result is
// verified element by element, a planted wrong element is caught and counted, the whole check
// passes with per-size metrics, and a collective that a rank never joins times out and is
// aborted instead of hanging.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <iostream>

#include "device/cuda/device_buffer.hpp"
#include "device/cuda/device_guard.hpp"
#include "device/cuda/event.hpp"
#include "device/cuda/stream.hpp"
#include "device/nccl/nccl_error.hpp"
#include "device/nccl/nccl_wait.hpp"
#include "device/nccl_allreduce/nccl_allreduce_bench.hpp"
#include "device/nccl_allreduce/nccl_allreduce_runner.hpp"
#include "gpu_test_support.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

#define REQUIRE_TWO_GPUS()                                                                             \
  GPUQUAL_REQUIRE_GPU();                                                                               \
  do {                                                                                                 \
    int gpuqual_n_ = 0;                                                                                \
    ASSERT_EQ(cudaGetDeviceCount(&gpuqual_n_), cudaSuccess);                                           \
    if (gpuqual_n_ < 2) GTEST_SKIP() << "an all-reduce needs 2 GPUs; this machine has " << gpuqual_n_; \
  } while (0)

constexpr std::uint64_t MiB = 1 << 20;

ncclUniqueId unique_id() {
  ncclUniqueId id{};
  NCCL_CHECK(ncclGetUniqueId(&id));
  return id;
}

TEST(GpuNccl, EveryTypePlacementAndSizeVerifies) {
  REQUIRE_TWO_GPUS();
  NcclAllreduceRunner runner({0, 1}, {0, 1}, 2, 64 * MiB);
  runner.connect(unique_id(), 60);
  for (auto type : {ReduceType::f32, ReduceType::bf16}) {
    for (bool in_place : {false, true}) {
      for (std::uint64_t bytes : {std::uint64_t{8192}, 4 * MiB + 4, 64 * MiB}) {
        const AllreduceItem item{type, bytes, in_place};
        runner.prepare(item, 1, 60);
        const double t = runner.time_reps(item, 3, 60);
        EXPECT_GT(t, 0) << allreduce_item_label(item);
        std::vector<AllreduceCheckCount> counts;
        for (int it = 0; it < 3; ++it) runner.check_once(item, 100 + it, 60, counts);
        ASSERT_EQ(counts.size(), 2u);
        for (const auto& c : counts)
          EXPECT_EQ(c.wrong, 0u) << allreduce_item_label(item) << ", first " << c.first_wrong;
        std::cout << "[ INFO ] " << allreduce_item_label(item) << ": " << t / 3 * 1e6 << " us, busbw "
                  << busbw_gbps(static_cast<double>(bytes), t / 3, 2) << " GB/s\n";
      }
    }
  }
  runner.finalize(60);
}

TEST(GpuNccl, PlantedWrongElementsAreCountedOnTheirGpu) {
  REQUIRE_TWO_GPUS();
  NcclAllreduceRunner runner({0, 1}, {0, 1}, 2, 4 * MiB);
  runner.connect(unique_id(), 60);
  for (auto type : {ReduceType::f32, ReduceType::bf16}) {
    const AllreduceItem item{type, 4 * MiB, false};
    std::vector<AllreduceCheckCount> counts;
    runner.check_once(item, 7, 60, counts, [](std::size_t k, void* result, const AllreduceItem& it) {
      if (k != 1) return;
      // Two elements of GPU 1's result: element 5 and the last one.
      const std::size_t elem = reduce_type_bytes(it.type);
      auto* bytes = static_cast<unsigned char*>(result);
      ASSERT_EQ(cudaMemset(bytes + 5 * elem, 0x3f, elem), cudaSuccess);
      ASSERT_EQ(cudaMemset(bytes + (it.count() - 1) * elem, 0x3f, elem), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    });
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts[0].wrong, 0u);
    EXPECT_EQ(counts[1].wrong, 2u) << allreduce_item_label(item);
    EXPECT_EQ(counts[1].first_wrong, 5u);
    EXPECT_EQ(counts[1].iterations_wrong, 1);
  }
  runner.finalize(60);
}

TEST(GpuNccl, CheckPassesWithMetricsPerSize) {
  REQUIRE_TWO_GPUS();
  const CheckInfo* info = CheckRegistry::instance().find("nccl_allreduce");
  ASSERT_NE(info, nullptr);
  CheckContext ctx;
  ctx.params = nlohmann::json{{"sizes", {"8K", "64M"}}, {"check_iters", 2},  {"warmup_s", 0.02},
                              {"min_samples", 3},       {"max_samples", 20}, {"measure_budget_s", 1.0}};
  ctx.budget_s = 20;
  const CheckResult r = info->make()->run(ctx);
  EXPECT_TRUE(r.status == Status::pass || r.status == Status::warn)
      << to_string(r.status) << ": " << r.reason;
  EXPECT_TRUE(r.findings.empty());
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(r.per_gpu.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(r.metrics.size(), 2u * 2u * 2u * 3u);  // types x placements x sizes x (time, algbw, busbw)
  double algbw = 0, busbw = 0;
  for (const auto& m : r.metrics) {
    EXPECT_FALSE(m.gpu.has_value()) << m.name;
    EXPECT_GT(m.median, 0) << m.name;
    if (m.name == "nccl.allreduce.float.64MiB.algbw_gbps") algbw = m.median;
    if (m.name == "nccl.allreduce.float.64MiB.busbw_gbps") busbw = m.median;
    std::cout << "[ INFO ] " << m.name << " " << m.median << " " << m.unit << " (CV " << m.cv * 100
              << " %)\n";
  }
  EXPECT_NEAR(busbw, algbw * 2.0 * (n - 1) / n, 1e-6 * busbw);
  EXPECT_FALSE(r.attributes.at("nccl.version").empty());
}

TEST(GpuNccl, OneGpuIsSkip) {
  GPUQUAL_REQUIRE_GPU();
  CheckContext ctx;
  ctx.gpus = {0};
  const CheckResult r = CheckRegistry::instance().find("nccl_allreduce")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_NE(r.reason.find("at least 2 GPUs"), std::string::npos) << r.reason;
}

// Rank 1 never joins the all-reduce rank 0 started: the wait times out with the seconds in the
// message, and aborting the communicators returns instead of waiting for the hung kernel.
TEST(GpuNccl, ACollectiveNobodyJoinsTimesOutAndAborts) {
  REQUIRE_TWO_GPUS();
  DeviceGuard guard(0);
  DeviceBuffer buf(MiB);
  Stream stream;
  Event done(cudaEventDisableTiming);
  const auto t0 = std::chrono::steady_clock::now();
  {
    NcclLocalComms comms({0, 1}, {0, 1}, 2, unique_id(), 60);
    const ncclComm_t only_rank0[] = {comms.handles()[0]};
    NCCL_CHECK(ncclAllReduce(buf.get(), buf.get(), MiB / 4, ncclFloat32, ncclSum, only_rank0[0], stream));
    wait_comms_settled(only_rank0, 10, "the lone all-reduce to be enqueued");
    done.record(stream);
    try {
      wait_event(done.get(), only_rank0, 2.0, "a rank that never joins");
      ADD_FAILURE() << "the lone all-reduce completed";
    } catch (const NcclTimeout& e) {
      EXPECT_STREQ(e.what(), "timed out after 2 s waiting for a rank that never joins");
    }
    comms.mark_failed();
  }  // ncclCommAbort on both
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 60.0) << "abort took too long";
  std::cout << "[ INFO ] timeout and abort took " << s << " s\n";
  // The aborted kernel leaves the stream (polled: a stuck kernel must fail the test, not hang it).
  EXPECT_NO_THROW(poll_until([&] { return cudaStreamQuery(stream) != cudaErrorNotReady; }, 20,
                             "the aborted kernel to end"));
}

}  // namespace
}  // namespace gpuqual
