// The Xid watch's pause after a failed wait (device/monitor/xid_wait_backoff.hpp): NVML answers a lost
// GPU at once, so the watch must pause rather than spin, longer while the failures go on, up to
// a bound, and not at all once a wait answers again. Plain arithmetic: no clock is read.
#include <gtest/gtest.h>

#include "device/monitor/xid_wait_backoff.hpp"

namespace gpuqual {
namespace {

TEST(XidWaitBackoff, DoublesWhileWaitsKeepFailingUpToTheBound) {
  XidWaitBackoff b(50, 5000);
  EXPECT_EQ(b.after_wait(true), 50u);
  EXPECT_EQ(b.after_wait(true), 100u);
  EXPECT_EQ(b.after_wait(true), 200u);
  EXPECT_EQ(b.after_wait(true), 400u);
  unsigned last = 0;
  for (int i = 0; i < 100; ++i) last = b.after_wait(true);
  EXPECT_EQ(last, 5000u);
  EXPECT_EQ(b.failures_in_a_row(), 104u);
  EXPECT_EQ(b.failures(), 104u);
}

TEST(XidWaitBackoff, NeverPausesZeroAfterAFailure) {
  // A zero first pause would be a spin: the first pause is at least a millisecond.
  XidWaitBackoff b(0, 0);
  for (int i = 0; i < 10; ++i) EXPECT_GE(b.after_wait(true), 1u);
}

TEST(XidWaitBackoff, AnAnsweredWaitStartsOverAndKeepsTheTotal) {
  XidWaitBackoff b(50, 5000);
  (void)b.after_wait(true);
  (void)b.after_wait(true);
  EXPECT_EQ(b.after_wait(false), 0u);
  EXPECT_EQ(b.failures_in_a_row(), 0u);
  EXPECT_EQ(b.after_wait(true), 50u);
  EXPECT_EQ(b.failures(), 3u);
}

TEST(XidWaitBackoff, ABoundBelowTheFirstPauseIsTheFirstPause) {
  XidWaitBackoff b(300, 100);
  EXPECT_EQ(b.after_wait(true), 300u);
  EXPECT_EQ(b.after_wait(true), 300u);
}

TEST(XidWaitBackoff, ManyFailuresDoNotOverflow) {
  XidWaitBackoff b(1, 4000000000u);
  unsigned last = 0;
  for (int i = 0; i < 200; ++i) last = b.after_wait(true);
  EXPECT_EQ(last, 4000000000u);
}

}  // namespace
}  // namespace gpuqual
