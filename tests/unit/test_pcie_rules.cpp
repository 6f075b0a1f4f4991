// The PCIe and peer-copy checks' pure rules: sysfs addresses and NUMA nodes (on a fake sysfs
// tree), CPU lists, byte accounting, names, pairs, and the host pattern check with planted errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include "device/pcie/pcie_plan.hpp"
#include "kernels/copy_pattern.cuh"

namespace gpuqual {
namespace {

namespace fs = std::filesystem;

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuqual-sysfs-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  fs::path root_;
};

TEST(PciAddress, CudaAndNvmlBusIdsMapToSysfsNames) {
  EXPECT_EQ(sysfs_pci_address("00000000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(sysfs_pci_address("0000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(sysfs_pci_address("0000:AB:00.1"), "0000:ab:00.1");
  EXPECT_EQ(sysfs_pci_address("00000001:9A:00.0"), "0001:9a:00.0");
  for (const char* bad : {"", "19:00.0", "00010000:19:00.0", "0000:19:00", "0000:19-00.0", "zzzz:19:00.0",
                          "000000000:19:00.0"}) {
    EXPECT_FALSE(sysfs_pci_address(bad).has_value()) << bad;
  }
}

TEST_F(FakeSysfs, NumaNodeOfAGpu) {
  write("bus/pci/devices/0000:19:00.0/numa_node", "1\n");
  write("bus/pci/devices/0000:1a:00.0/numa_node", "-1\n");
  EXPECT_EQ(read_numa_node(root_.string(), "0000:19:00.0"), 1);
  EXPECT_FALSE(read_numa_node(root_.string(), "0000:1a:00.0").has_value());  // no NUMA affinity
  EXPECT_FALSE(read_numa_node(root_.string(), "0000:1b:00.0").has_value());  // absent
}

TEST_F(FakeSysfs, CpusOfANode) {
  write("devices/system/node/node1/cpulist", "48-95,144-191\n");
  const auto cpus = read_numa_cpus(root_.string(), 1);
  ASSERT_TRUE(cpus);
  EXPECT_EQ(cpus->size(), 96u);
  EXPECT_EQ(cpus->front(), 48);
  EXPECT_EQ(cpus->back(), 191);
  EXPECT_FALSE(read_numa_cpus(root_.string(), 3).has_value());
}

TEST(CpuList, ParsesRangesAndRejectsGarbage) {
  auto c = parse_cpu_list("0-3,8,10-11");
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  c = parse_cpu_list("5\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, std::vector<int>{5});
  for (const char* bad : {"", "\n", "3-1", "a", "1,,2", "1-", "-1", "1,2,"}) {
    EXPECT_FALSE(parse_cpu_list(bad).has_value()) << bad;
  }
}

TEST(CopyAccounting, BidirectionalCountsBothDirections) {
  EXPECT_DOUBLE_EQ(copy_bytes_per_op(CopyDirection::h2d, kPcieMinBytes), 268435456.0);
  EXPECT_DOUBLE_EQ(copy_bytes_per_op(CopyDirection::d2h, kPcieMinBytes), 268435456.0);
  EXPECT_DOUBLE_EQ(copy_bytes_per_op(CopyDirection::bidir, kPcieMinBytes), 2 * 268435456.0);
  // 256 MiB in 4.88 ms is 55 GB/s (1e9 bytes/s), the copy-engine H2D figure for Gen5 x16.
  EXPECT_NEAR(copy_bytes_per_op(CopyDirection::h2d, kPcieMinBytes) / 4.88e-3 / 1e9, 55.0, 0.1);
}

TEST(CopyNames, MetricNamesAndParsing) {
  EXPECT_EQ(pcie_metric_name(CopyDirection::h2d), "pcie.h2d.gbps");
  EXPECT_EQ(pcie_metric_name(CopyDirection::bidir), "pcie.bidir.gbps");
  EXPECT_EQ(pcie_all_metric_name(CopyDirection::d2h), "pcie.all.d2h.gbps");
  EXPECT_EQ(p2p_metric_name(false, 0, 3), "p2p.uni.0_3.gbps");
  EXPECT_EQ(p2p_metric_name(true, 1, 2), "p2p.bidir.1_2.gbps");
  for (auto d : all_copy_directions()) EXPECT_EQ(parse_copy_direction(to_string(d)), d);
  EXPECT_FALSE(parse_copy_direction("H2D").has_value());
}

TEST(CopyPairs, OrderedAndUnordered) {
  const std::vector<int> gpus{0, 1, 2, 3};
  EXPECT_EQ(ordered_pairs(gpus).size(), 12u);
  EXPECT_EQ(unordered_pairs(gpus).size(), 6u);
  EXPECT_EQ(unordered_pairs(gpus).front(), std::make_pair(0, 1));
  EXPECT_TRUE(ordered_pairs({5}).empty());
  EXPECT_EQ(ordered_pairs({2, 7}), (std::vector<std::pair<int, int>>{{2, 7}, {7, 2}}));
}

// The canary's p2p plan: the ring over the GPUs, every GPU sending and receiving once.
TEST(CopyPairs, RingPlan) {
  using Pairs = std::vector<std::pair<int, int>>;
  EXPECT_EQ(ring_ordered_pairs({0, 1, 2, 3}), (Pairs{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
  EXPECT_EQ(ring_unordered_pairs({0, 1, 2, 3}), (Pairs{{0, 1}, {1, 2}, {2, 3}, {0, 3}}));
  EXPECT_EQ(ring_ordered_pairs({2, 7}), (Pairs{{2, 7}, {7, 2}}));
  EXPECT_EQ(ring_unordered_pairs({2, 7}), (Pairs{{2, 7}}));  // the one edge, once
  EXPECT_TRUE(ring_ordered_pairs({5}).empty());
  EXPECT_TRUE(ring_unordered_pairs({}).empty());
  std::vector<int> eight{0, 1, 2, 3, 4, 5, 6, 7};
  // 8 + 8 measurements instead of 56 + 28 (all pairs).
  EXPECT_EQ(ring_ordered_pairs(eight).size() + ring_unordered_pairs(eight).size(), 16u);
  EXPECT_EQ(ordered_pairs(eight).size() + unordered_pairs(eight).size(), 84u);
  std::vector<int> sends(8, 0), receives(8, 0);
  for (auto [a, b] : ring_ordered_pairs(eight)) {
    ++sends[a];
    ++receives[b];
  }
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(sends[g], 1) << g;
    EXPECT_EQ(receives[g], 1) << g;
  }
}

TEST(HostPattern, IntactBufferHasNoMismatchAndPlantedOnesAreCounted) {
  std::vector<std::uint64_t> words(100000);
  fill_pattern_host(words.data(), words.size(), 17);
  std::uint64_t first = 0;
  EXPECT_EQ(count_pattern_mismatches_host(words.data(), words.size(), 17, &first), 0u);
  EXPECT_EQ(words[123], kernels::copy_pattern_word(17, 123));  // the device fill's value
  words[500] ^= 1;                                             // one flipped bit
  words[90000] = 0;                                            // one zeroed word
  words[777] = words[778];                                     // one misplaced word
  EXPECT_EQ(count_pattern_mismatches_host(words.data(), words.size(), 17, &first), 3u);
  EXPECT_EQ(first, 500u);
  // The right data under the wrong seed (a copy from the wrong buffer) is all wrong.
  fill_pattern_host(words.data(), words.size(), 18);
  EXPECT_EQ(count_pattern_mismatches_host(words.data(), words.size(), 17, &first), words.size());
}

}  // namespace
}  // namespace gpuqual
