// One GPU's loop of measurements (device/measure/measure_gpus.hpp, run_gpu_steps): an ordinary error is
// reported and the loop goes on; a sticky CUDA error stops it and is reported once.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "device/cublas/cublas_error.hpp"
#include "device/cuda/cuda_error.hpp"
#include "device/measure/measure_gpus.hpp"

namespace gpuqual {
namespace {

struct Report {
  std::size_t step;
  std::string what;
  std::size_t remaining;
};

std::vector<Report> run(std::size_t count, std::size_t failing, const std::function<void()>& thrower,
                        std::vector<std::size_t>* ran) {
  std::vector<Report> reports;
  run_gpu_steps(
      count,
      [&](std::size_t i) {
        ran->push_back(i);
        if (i == failing) thrower();
      },
      [&](std::size_t i, const std::string& what, std::size_t remaining) {
        reports.push_back({i, what, remaining});
      });
  return reports;
}

TEST(GpuSteps, StickyErrorsAreTheContextLosingOnes) {
  for (cudaError_t e : {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorHardwareStackError,
                        cudaErrorIllegalInstruction, cudaErrorMisalignedAddress, cudaErrorAssert,
                        cudaErrorECCUncorrectable, cudaErrorLaunchTimeout}) {
    EXPECT_TRUE(is_sticky_cuda_error(e)) << e;
  }
  for (cudaError_t e : {cudaSuccess, cudaErrorMemoryAllocation, cudaErrorInvalidValue,
                        cudaErrorInsufficientDriver, cudaErrorNotSupported}) {
    EXPECT_FALSE(is_sticky_cuda_error(e)) << e;
  }
}

TEST(GpuSteps, AStickyErrorStopsTheLoopAndIsReportedOnce) {
  std::vector<std::size_t> ran;
  const auto reports = run(
      7, 2, [] { throw CudaError(cudaErrorIllegalAddress, "cudaStreamSynchronize(s)", "f.cpp", 1); }, &ran);
  EXPECT_EQ(ran, (std::vector<std::size_t>{0, 1, 2}));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].step, 2u);
  EXPECT_EQ(reports[0].remaining, 4u);
  EXPECT_NE(reports[0].what.find("cudaErrorIllegalAddress"), std::string::npos) << reports[0].what;
  EXPECT_NE(reports[0].what.find("4 later measurement(s) on this GPU not run"), std::string::npos)
      << reports[0].what;
}

TEST(GpuSteps, AnOrdinaryErrorIsReportedAndTheLoopGoesOn) {
  std::vector<std::size_t> ran;
  const auto reports = run(
      4, 1, [] { throw CublasError(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul(...)", "f.cpp", 1); }, &ran);
  EXPECT_EQ(ran, (std::vector<std::size_t>{0, 1, 2, 3}));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].step, 1u);
  EXPECT_EQ(reports[0].remaining, 0u);
  EXPECT_EQ(reports[0].what.find("sticky"), std::string::npos);

  ran.clear();
  const auto oom = run(
      3, 0, [] { throw CudaError(cudaErrorMemoryAllocation, "cudaMalloc", "f.cpp", 1); }, &ran);
  EXPECT_EQ(ran.size(), 3u);
  EXPECT_EQ(oom.size(), 1u);
}

TEST(GpuSteps, AStickyErrorOnTheLastStepLeavesNothingUnrun) {
  std::vector<std::size_t> ran;
  const auto reports = run(
      2, 1, [] { throw CudaError(cudaErrorLaunchFailure, "k<<<>>>", "f.cpp", 1); }, &ran);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].remaining, 0u);
  EXPECT_NE(reports[0].what.find("sticky"), std::string::npos);
  EXPECT_EQ(reports[0].what.find("not run"), std::string::npos);
}

}  // namespace
}  // namespace gpuqual
