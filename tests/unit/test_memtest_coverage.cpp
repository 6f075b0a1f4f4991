// memtest coverage judged (core/rules/memtest_coverage.hpp): nothing tested, short of the target, and
// memory held by another process left untested.
#include <gtest/gtest.h>

#include "core/rules/memtest_coverage.hpp"

using namespace gpuqual;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kH200 = 143771 * kMiB;

MemtestCoverageInput h200(std::uint64_t free_bytes) {
  MemtestCoverageInput in;
  in.total_bytes = kH200;
  in.free_bytes = free_bytes;
  in.fraction_of_free = 0.9;
  in.target_bytes = static_cast<std::uint64_t>(0.9 * static_cast<double>(free_bytes));
  in.tested_bytes = in.target_bytes;
  return in;
}

}  // namespace

TEST(MemtestCoverage, AnIdleGpuTestedToItsTargetPasses) {
  // The driver and the context hold about 0.5 GiB of an idle H200.
  const MemtestCoverage c = judge_memtest_coverage(h200(kH200 - 600 * kMiB));
  EXPECT_EQ(c.status, Status::pass) << c.reason;
  EXPECT_TRUE(c.reason.empty());
}

TEST(MemtestCoverage, ZeroBytesIsError) {
  MemtestCoverageInput in = h200(kH200);
  in.tested_bytes = 0;
  in.allocation_note = "cudaMalloc: out of memory";
  const MemtestCoverage c = judge_memtest_coverage(in);
  EXPECT_EQ(c.status, Status::error);
  EXPECT_NE(c.reason.find("tested 0 bytes"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("out of memory"), std::string::npos) << c.reason;
}

TEST(MemtestCoverage, ShortOfTheTargetIsErrorWithBothAmounts) {
  MemtestCoverageInput in = h200(kH200);
  in.tested_bytes = 1024 * kMiB;
  in.target_bytes = 2048 * kMiB;
  const MemtestCoverage c = judge_memtest_coverage(in);
  EXPECT_EQ(c.status, Status::error);
  EXPECT_NE(c.reason.find("tested 1024 of 2048 MiB"), std::string::npos) << c.reason;
}

TEST(MemtestCoverage, MemoryHeldByAnotherProcessIsWarnWithTheAmount) {
  // Another process holds 60 GiB: 90 % of free is 72 GiB, about half the GPU.
  const MemtestCoverage c = judge_memtest_coverage(h200(kH200 - 61440 * kMiB));
  EXPECT_EQ(c.status, Status::warn);
  EXPECT_NE(c.reason.find("61440 MiB was not free"), std::string::npos) << c.reason;
  // Just inside the 5 % allowance for reservations: still a pass.
  const std::uint64_t free_ok = static_cast<std::uint64_t>(static_cast<double>(kH200) * 0.96);
  EXPECT_EQ(judge_memtest_coverage(h200(free_ok)).status, Status::pass);
}

TEST(MemtestCoverage, AnOperatorsCapIsNotAShortfall) {
  MemtestCoverageInput in = h200(kH200);
  in.capped = true;
  in.target_bytes = in.tested_bytes = 256 * kMiB;
  EXPECT_EQ(judge_memtest_coverage(in).status, Status::pass);
}
