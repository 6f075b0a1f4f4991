// The HBM check's pure rules: array sizing against the L2 and the GPU's memory, byte
// accounting, names, sampled indices, and the host replay with planted errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "device/hbm/hbm_plan.hpp"

namespace gpuqual {
namespace {

constexpr std::uint64_t MiB = 1ULL << 20, GiB = 1ULL << 30;

TEST(HbmPlan, DefaultIsOneGibOrFourTimesL2) {
  // H200: 60 MiB L2 (CUDA reports 50-60 MiB), 141 GB: 1 GiB arrays (> 4 x L2 = 240 MiB).
  auto p = plan_hbm_arrays(60 * MiB, 141ULL * 1000 * 1000 * 1000, 0);
  EXPECT_EQ(p.bytes, GiB);
  EXPECT_EQ(p.elements, GiB / 8);
  EXPECT_TRUE(p.note.empty());
  EXPECT_GE(p.bytes, 4 * 60 * MiB);
  // A future part with a 512 MiB L2: 2 GiB arrays.
  p = plan_hbm_arrays(512 * MiB, 192 * GiB, 0);
  EXPECT_EQ(p.bytes, 2 * GiB);
}

TEST(HbmPlan, RequestsBelowFourTimesL2AreRaisedAndSaySo) {
  const auto p = plan_hbm_arrays(50 * MiB, 80 * GiB, 64 * MiB);
  EXPECT_EQ(p.bytes, 200 * MiB);
  EXPECT_NE(p.note.find("raised"), std::string::npos) << p.note;
}

TEST(HbmPlan, CappedBySmallMemoryAndByTheExactSumLimit) {
  auto p = plan_hbm_arrays(6 * MiB, 8 * GiB, 4 * GiB);
  EXPECT_EQ(p.bytes, GiB);  // an eighth of 8 GiB
  EXPECT_NE(p.note.find("lowered"), std::string::npos) << p.note;
  p = plan_hbm_arrays(60 * MiB, 1024 * GiB, 16 * GiB);
  EXPECT_EQ(p.bytes, kHbmMaxArrayBytes);
  EXPECT_THROW(plan_hbm_arrays(64 * MiB, 1 * GiB, 0), std::invalid_argument);  // 4 x L2 > memory / 8
}

TEST(HbmPlan, SizesAreWholeMebibytes) {
  const auto p = plan_hbm_arrays(60 * MiB, 141 * GiB, GiB + 12345);
  EXPECT_EQ(p.bytes % MiB, 0u);
  EXPECT_GE(p.bytes, GiB + 12345);
  EXPECT_EQ(p.elements % 2, 0u);  // the kernels move double2 vectors
}

TEST(HbmAccounting, BytesReadPlusWritten) {
  const std::uint64_t n = GiB / 8;
  EXPECT_DOUBLE_EQ(hbm_bytes_per_op(StreamKernel::copy, n), 2.0 * GiB);
  EXPECT_DOUBLE_EQ(hbm_bytes_per_op(StreamKernel::triad, n), 3.0 * GiB);
  EXPECT_DOUBLE_EQ(hbm_bytes_per_op(StreamKernel::add, n), 3.0 * GiB);
  EXPECT_DOUBLE_EQ(hbm_bytes_per_op(StreamKernel::read, n), 1.0 * GiB);
  EXPECT_DOUBLE_EQ(hbm_bytes_per_op(StreamKernel::write, n), 1.0 * GiB);
  // PyTorch's H200 copy_ figure: 8.6 GB moved in 2.0 ms is 4.3 TB/s.
  EXPECT_NEAR(8.6e9 / 2.0e-3 / 1e9, 4300, 1e-9);
}

TEST(HbmNames, MetricNamesAndParsing) {
  EXPECT_EQ(hbm_metric_name(StreamKernel::triad), "hbm.triad.gbps");
  EXPECT_EQ(hbm_metric_name(StreamKernel::read), "hbm.read.gbps");
  for (auto k : all_stream_kernels()) EXPECT_EQ(parse_stream_kernel(to_string(k)), k);
  EXPECT_FALSE(parse_stream_kernel("nstream").has_value());
  EXPECT_EQ(all_stream_kernels().size(), 6u);
}

TEST(HbmSamples, FirstAndLastAlwaysIncludedAndDistinct) {
  const auto idx = hbm_sample_indices(1000000, 100, 3);
  ASSERT_EQ(idx.size(), 100u);
  EXPECT_EQ(idx[0], 0u);
  EXPECT_EQ(idx[1], 999999u);
  EXPECT_EQ(std::set<std::uint64_t>(idx.begin(), idx.end()).size(), idx.size());
  for (auto i : idx) EXPECT_LT(i, 1000000u);
  EXPECT_EQ(hbm_sample_indices(5, 100, 1).size(), 5u);
}

TEST(HbmScalars, FiniteNonZeroAndSmallSlope) {
  const auto sc = hbm_scalars(77);
  EXPECT_EQ(sc.s, 0.4);
  EXPECT_GE(sc.w0, 1.0);
  EXPECT_GT(sc.w1, 0.0);
  EXPECT_LT(sc.w1 * 1e9, 2.0);  // write values stay O(1) over 1e9 elements
}

std::vector<double> correct_outputs(StreamKernel k, std::uint64_t seed, kernels::StreamScalars sc,
                                    const std::vector<std::uint64_t>& idx) {
  std::vector<double> out;
  for (auto i : idx) {
    const double a = kernels::stream_init_value(seed, 0, i), b = kernels::stream_init_value(seed, 1, i);
    bool ok = false;
    out.push_back(kernels::stream_expected_output(k, a, b, i, sc, &ok));
  }
  return out;
}

TEST(HbmReplay, CorrectValuesPassForEveryKernel) {
  const auto idx = hbm_sample_indices(1 << 20, 256, 9);
  const auto sc = hbm_scalars(9);
  for (auto k : all_stream_kernels()) {
    const auto r = replay_stream_samples(k, 9, sc, idx, correct_outputs(k, 9, sc, idx));
    EXPECT_EQ(r.wrong, 0) << to_string(k) << ": " << r.first_wrong;
    EXPECT_EQ(r.checked, k == StreamKernel::read ? 0 : 256) << to_string(k);
  }
}

TEST(HbmReplay, OneUlpIsCaught) {
  const auto idx = hbm_sample_indices(1 << 20, 64, 2);
  const auto sc = hbm_scalars(2);
  auto got = correct_outputs(StreamKernel::triad, 2, sc, idx);
  got[10] = std::nextafter(got[10], 10.0);
  const auto r = replay_stream_samples(StreamKernel::triad, 2, sc, idx, got);
  EXPECT_EQ(r.wrong, 1);
  EXPECT_NE(r.first_wrong.find("d[" + std::to_string(idx[10]) + "]"), std::string::npos) << r.first_wrong;
}

TEST(HbmReplay, StaleOutputOfAnotherKernelIsCaught) {
  // d left over from copy must not pass for scale.
  const auto idx = hbm_sample_indices(1 << 20, 64, 4);
  const auto sc = hbm_scalars(4);
  const auto stale = correct_outputs(StreamKernel::copy, 4, sc, idx);
  const auto r = replay_stream_samples(StreamKernel::scale, 4, sc, idx, stale);
  EXPECT_EQ(r.wrong, 64);
  // A different seed's answer is wrong too.
  const auto other = correct_outputs(StreamKernel::add, 5, sc, idx);
  EXPECT_EQ(replay_stream_samples(StreamKernel::add, 4, sc, idx, other).wrong, 64);
}

TEST(HbmReplay, ExpectedSumIsOrderIndependentAndNearTheMean) {
  const std::uint64_t n = 1 << 18;
  const double sum = stream_expected_sum_host(3, n);
  EXPECT_NEAR(sum / static_cast<double>(n), 1.5, 0.01);  // uniform on [1, 2)
  double backwards = 0;
  for (std::uint64_t i = n; i-- > 0;) backwards += kernels::stream_init_value(3, 0, i);
  EXPECT_EQ(sum, backwards);
}

}  // namespace
}  // namespace gpuqual
