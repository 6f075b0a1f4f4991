// A measurement the budget stopped below min_samples warns "too few samples to gate on"
// (docs/compare.md, "No false pass"); a converged one, or one stopped by max_samples, does not.
#include <gtest/gtest.h>

#include "device/measure/measure_report.hpp"

using namespace gpuqual;

namespace {

MeasureResult stopped_after(int samples, StopReason why) {
  MeasureResult m;
  m.seconds_per_op.assign(static_cast<std::size_t>(samples), 1e-3);
  m.stop = why;
  m.min_samples = 5;
  return m;
}

}  // namespace

TEST(MeasureTooFewSamples, BudgetBelowMinSamplesWarns) {
  GpuOutcome out;
  record_measurement_attributes(out, "gemm.bf16", 3, stopped_after(2, StopReason::budget));
  EXPECT_EQ(out.status, Status::warn);
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("too few samples to gate on (2 of min_samples 5"), std::string::npos)
      << out.notes[0];
}

TEST(MeasureTooFewSamples, EnoughSamplesOrAnotherStopDoesNot) {
  for (const auto& [n, why] : {std::pair{5, StopReason::budget}, std::pair{3, StopReason::converged},
                               std::pair{3, StopReason::stop_requested}}) {
    GpuOutcome out;
    record_measurement_attributes(out, "hbm.copy", 0, stopped_after(n, why));
    EXPECT_NE(out.status, Status::warn) << n;
    EXPECT_TRUE(out.notes.empty()) << n;
  }
}
