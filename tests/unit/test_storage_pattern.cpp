// The storage check's pattern (every byte recomputable from seed and offset) and its verifier,
// and the mountinfo reader: pure functions, tested on exact values.
#include <gtest/gtest.h>

#include <vector>

#include "probes/storage/mount_info.hpp"
#include "probes/storage/storage_pattern.hpp"

namespace gpuqual::probes {
namespace {

std::vector<std::byte> pattern(std::uint64_t seed, std::uint64_t offset, std::size_t n) {
  std::vector<std::byte> v(n);
  fill_storage_pattern(seed, offset, v);
  return v;
}

TEST(StoragePattern, AnyRangeEqualsTheSameSliceOfTheWhole) {
  const auto whole = pattern(42, 0, 1 << 16);
  const auto part = pattern(42, 4096, 8192);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 4096));
  // Another seed is another pattern: a file left by another run never verifies.
  PatternMismatch m;
  verify_storage_pattern(43, 0, whole, m);
  EXPECT_GT(m.bad_bytes, (1u << 16) * 9 / 10);
}

TEST(StoragePattern, VerifyCountsEveryCorruptedByteAndTheFirstOffset) {
  auto data = pattern(7, 1 << 20, 1 << 16);
  PatternMismatch clean;
  verify_storage_pattern(7, 1 << 20, data, clean);
  EXPECT_EQ(clean.bad_bytes, 0u);

  data[100] ^= std::byte{0x01};                                      // one flipped bit
  data[9000] = ~data[9000];                                          // one inverted byte
  for (int i = 20000; i < 20000 + 512; ++i) data[i] = std::byte{0};  // a zeroed sector (512 B)
  PatternMismatch m;
  verify_storage_pattern(7, 1 << 20, data, m);
  // The zeroed sector: a splitmix64 word has a zero byte with probability ~1/256 per byte, so
  // count exactly what differs rather than assume 512.
  const auto want = pattern(7, 1 << 20, 1 << 16);
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < data.size(); ++i) expected += data[i] != want[i];
  EXPECT_EQ(m.bad_bytes, expected);
  EXPECT_GE(m.bad_bytes, 2u + 500u);
  EXPECT_EQ(m.first_bad_offset, (1u << 20) + 100u);
}

TEST(StoragePattern, VerifyAccumulatesAcrossChunks) {
  auto a = pattern(9, 0, 4096), b = pattern(9, 4096, 4096);
  b[8] ^= std::byte{0xff};
  PatternMismatch m;
  verify_storage_pattern(9, 0, a, m);
  verify_storage_pattern(9, 4096, b, m);
  EXPECT_EQ(m.bad_bytes, 1u);
  EXPECT_EQ(m.first_bad_offset, 4096u + 8u);
}

// Lines as this kernel writes them (/proc/self/mountinfo of the development machine, trimmed),
// plus an over-mount and an escaped space.
constexpr const char* kMountinfo =
    "1203 1126 0:313 / / rw,relatime master:507 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n"
    "1204 1203 0:316 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
    "1290 1203 254:1 /data /mnt/shared\\040data ro,relatime - ext4 /dev/vda1 rw\n"
    "1300 1203 0:50 / /scratch rw,nosuid - tmpfs tmpfs rw,size=1024k\n"
    "1301 1300 0:51 / /scratch rw,relatime shared:9 - xfs /dev/nvme0n1 rw,attr2,inode64\n"
    "garbage line\n";

TEST(MountInfo, LongestPrefixTopOfOvermountEscapesAndReadOnly) {
  const auto mounts = parse_mountinfo(kMountinfo);
  ASSERT_EQ(mounts.size(), 5u);
  const auto shared = mount_of(mounts, "/mnt/shared data/x");
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->mount_point, "/mnt/shared data");
  EXPECT_EQ(shared->fs_type, "ext4");
  EXPECT_TRUE(shared->read_only());
  const auto scratch = mount_of(mounts, "/scratch/job1");
  ASSERT_TRUE(scratch);
  EXPECT_EQ(scratch->fs_type, "xfs");  // the later mount on /scratch hides the tmpfs
  EXPECT_FALSE(scratch->read_only());
  EXPECT_EQ(mount_of(mounts, "/scratchy")->fs_type, "overlay");  // a name prefix is not a path prefix
  EXPECT_EQ(mount_of(mounts, "/proc")->fs_type, "proc");
}

}  // namespace
}  // namespace gpuqual::probes
