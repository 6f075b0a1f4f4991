// ScopedThreadAffinity (device/host/cpu_affinity.hpp): PcieBench's NUMA binding is given back, so the
// rest of the process is not left pinned to one node.
#include <gtest/gtest.h>

#include "device/host/cpu_affinity.hpp"

namespace gpuqual {
namespace {

TEST(CpuAffinity, ABindingIsGivenBackAtTheEndOfItsScope) {
  const std::vector<int> before = current_thread_cpus();
  ASSERT_FALSE(before.empty());
  {
    ScopedThreadAffinity scope;
    ASSERT_TRUE(scope.bind({before.front()}));
    EXPECT_EQ(current_thread_cpus(), std::vector<int>{before.front()});
  }
  EXPECT_EQ(current_thread_cpus(), before);
}

TEST(CpuAffinity, NothingToBindLeavesTheThreadAlone) {
  const std::vector<int> before = current_thread_cpus();
  {
    ScopedThreadAffinity scope;
    EXPECT_FALSE(scope.bind({}));
    EXPECT_FALSE(scope.bind({-1, 1 << 20}));  // not CPU ids the set can hold
    EXPECT_EQ(current_thread_cpus(), before);
  }
  EXPECT_EQ(current_thread_cpus(), before);
}

}  // namespace
}  // namespace gpuqual
