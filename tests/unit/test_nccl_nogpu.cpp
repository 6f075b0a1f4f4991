// The all-reduce check, the benchmark and the communicator owner on a machine whose CUDA
// runtime cannot use a GPU (no driver): each ends promptly with the CUDA reason, never a hang
// and never a pass. On a machine with a usable GPU these skip: tests/gpu/ covers that case.
#include <gtest/gtest.h>

#include <chrono>

#include "device/cuda/cuda_error.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/nccl/nccl_local_comms.hpp"
#include "device/nccl_allreduce/nccl_allreduce_bench.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

#define SKIP_IF_A_GPU_WORKS()                                                                          \
  do {                                                                                                 \
    if (probe_cuda().ok()) GTEST_SKIP() << "a GPU is usable here: tests/gpu runs the real all-reduce"; \
  } while (0)

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(NcclNoGpu, CheckIsErrorOrSkipWithTheCudaReason) {
  SKIP_IF_A_GPU_WORKS();
  const CheckInfo* info = CheckRegistry::instance().find("nccl_allreduce");
  ASSERT_NE(info, nullptr);
  CheckContext ctx;
  ctx.params = nlohmann::json{{"sizes", {"8K", "64M"}}, {"check_iters", 2}};
  const auto t0 = std::chrono::steady_clock::now();
  const CheckResult r = info->make()->run(ctx);
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_EQ(r.name, "nccl_allreduce");
  const CudaProbe probe = probe_cuda();
  EXPECT_EQ(r.status, probe.no_device ? Status::skip : Status::error);
  EXPECT_NE(r.reason.find("cudaGetDeviceCount"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.metrics.empty());
}

TEST(NcclNoGpu, BadParametersAreAnErrorNamingTheKey) {
  const CheckInfo* info = CheckRegistry::instance().find("nccl_allreduce");
  ASSERT_NE(info, nullptr);
  CheckContext ctx;
  ctx.params = nlohmann::json{{"sizes", {"64MB"}}};
  const CheckResult r = info->make()->run(ctx);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.reason.find("$.params.sizes[0]"), std::string::npos) << r.reason;
}

TEST(NcclNoGpu, BenchStopsAtTheFirstStepWithTheLocalError) {
  SKIP_IF_A_GPU_WORKS();
  AllreduceParams params = read_allreduce_params(nlohmann::json::object(), "test");
  LocalRankSync sync;
  AllreduceBenchSetup setup;
  setup.gpus = {0, 1};
  setup.ranks = {0, 1};
  setup.record_gpus = {0, 1};
  setup.nranks = 2;
  setup.sync = &sync;
  const auto t0 = std::chrono::steady_clock::now();
  const AllreduceBenchOutcome out = run_allreduce_bench(params, setup);
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(out.aborted);
  EXPECT_EQ(out.aborted_at, "allocating buffers");
  EXPECT_NE(out.local_error.find("CUDA error"), std::string::npos) << out.local_error;
  EXPECT_EQ(out.status, Status::error);
  EXPECT_TRUE(out.metrics.empty());
  EXPECT_EQ(out.attributes.at("nccl.ranks"), "2");
  EXPECT_FALSE(out.attributes.at("nccl.version").empty());
  EXPECT_NE(aborted_reason(out).find("allocating buffers: CUDA error"), std::string::npos);
}

TEST(NcclNoGpu, CommunicatorInitThrowsPromptlyWithTheCudaError) {
  SKIP_IF_A_GPU_WORKS();
  ncclUniqueId id{};
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);  // works without a GPU (docs/architecture.md)
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto t0 = std::chrono::steady_clock::now();
    // Twice: a failed attempt leaves nothing behind that changes the next one.
    EXPECT_THROW(NcclLocalComms({0, 1}, {0, 1}, 2, id, 5), CudaError);
    EXPECT_LT(seconds_since(t0), 5.0);
  }
  EXPECT_NE(nccl_version_string().find("2."), std::string::npos);
}

}  // namespace
}  // namespace gpuqual
