// xid_events_unsupported (device/monitor/xid_monitor.hpp): an environment that does not support Xid
// events (VMs, sandboxed runtimes: NVML_ERROR_NOT_SUPPORTED) is told apart from a failure, so the
// GPU test skips with the reason there and fails elsewhere.
#include <gtest/gtest.h>

#include "device/monitor/xid_monitor.hpp"

namespace gpuqual {
namespace {

using R = XidRegistration;

TEST(XidRegistration, EveryGpuUnsupportedIsTheEnvironment) {
  EXPECT_TRUE(xid_events_unsupported({R::unsupported}));
  EXPECT_TRUE(xid_events_unsupported({R::unsupported, R::unsupported}));
}

TEST(XidRegistration, AFailureOrARegisteredGpuIsNot) {
  EXPECT_FALSE(xid_events_unsupported({R::unsupported, R::failed}));  // one GPU failed for another reason
  EXPECT_FALSE(xid_events_unsupported({R::failed}));
  EXPECT_FALSE(xid_events_unsupported({R::registered, R::unsupported}));
  EXPECT_FALSE(xid_events_unsupported({}));  // no GPU was asked: nothing says the environment refused
}

}  // namespace
}  // namespace gpuqual
