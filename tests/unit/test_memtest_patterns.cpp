// The memtest patterns and check loop on the CPU (tests/unit/memtest_reference.hpp runs the same
// __host__ __device__ value and comparison functions as the GPU kernels) against simulated
// faulty memory: a bit flipped once, a stuck bit, and an address line that aliases two words.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "device/memtest/memtest_plan.hpp"
#include "memtest_reference.hpp"

namespace gpuqual {
namespace {

using kernels::MemtestErrorLog;

// Healthy memory.
struct Ram {
  std::vector<std::uint64_t> w;
  explicit Ram(std::size_t n) : w(n, 0) {}
  std::uint64_t read(std::uint64_t i) const { return w[i]; }
  void write(std::uint64_t i, std::uint64_t v) { w[i] = v; }
};

// One bit of one word reads back flipped once (a transient upset after the first write).
struct FlipOnce : Ram {
  std::uint64_t at;
  int bit;
  bool armed = true;
  FlipOnce(std::size_t n, std::uint64_t a, int b) : Ram(n), at(a), bit(b) {}
  std::uint64_t read(std::uint64_t i) {
    if (i == at && armed) {
      armed = false;
      w[i] ^= 1ULL << bit;
    }
    return w[i];
  }
};

// One bit of one word stuck at `value`.
struct StuckBit : Ram {
  std::uint64_t at;
  int bit;
  bool value;
  StuckBit(std::size_t n, std::uint64_t a, int b, bool v) : Ram(n), at(a), bit(b), value(v) {}
  std::uint64_t read(std::uint64_t i) const {
    std::uint64_t v = w[i];
    if (i == at) v = value ? (v | (1ULL << bit)) : (v & ~(1ULL << bit));
    return v;
  }
};

// Address line `line` stuck at 0: word i and word i | (1 << line) are the same cell.
struct AliasedLine : Ram {
  int line;
  AliasedLine(std::size_t n, int l) : Ram(n), line(l) {}
  std::uint64_t cell(std::uint64_t i) const { return i & ~(1ULL << line); }
  std::uint64_t read(std::uint64_t i) const { return w[cell(i)]; }
  void write(std::uint64_t i, std::uint64_t v) { w[cell(i)] = v; }
};

constexpr std::size_t kWords = 4096;
constexpr std::uint64_t kSeed = 42;

template <class Memory>
MemtestErrorLog run(Memory& mem, MemtestPattern p, std::uint32_t pass = 0, std::uint64_t base = 0) {
  MemtestErrorLog log{};
  kernels::memtest_reference_pattern(mem, kWords, base, p, kSeed, pass, log);
  return log;
}

class EveryPattern : public ::testing::TestWithParam<MemtestPattern> {};

TEST_P(EveryPattern, HealthyMemoryHasNoErrors) {
  for (std::uint32_t pass = 0; pass < 3; ++pass) {
    Ram mem(kWords);
    EXPECT_EQ(run(mem, GetParam(), pass, 1 << 20).count, 0U);
  }
}

TEST_P(EveryPattern, FlippedBitCaughtWithAddressAndBit) {
  for (int bit : {0, 17, 63}) {
    FlipOnce mem(kWords, 1234, bit);
    const MemtestErrorLog log = run(mem, GetParam(), 0, 1 << 20);
    ASSERT_EQ(log.count, 1U) << to_string(GetParam()) << " bit " << bit;
    EXPECT_EQ(log.entries[0].index, (1U << 20) + 1234U);
    EXPECT_EQ(log.entries[0].step, 0U);  // seen by the first verify after the write
    EXPECT_EQ(flipped_bits(log.entries[0].expected, log.entries[0].observed), std::vector<int>{bit});
  }
}

TEST_P(EveryPattern, StuckBitCaughtWithAddressAndBit) {
  // A stuck-at-0 bit is only visible where the pattern writes a 1 there, and vice versa. The
  // walking patterns reach every bit of a word over 8 passes (the offset rotates by 8 a pass),
  // so the faults are looked for over 8 passes, as a multi-pass memtest would.
  for (bool stuck : {false, true}) {
    for (int bit : {0, 31, 63}) {
      unsigned long long total = 0;
      for (std::uint32_t pass = 0; pass < 8; ++pass) {
        StuckBit mem(kWords, 1000, bit, stuck);
        const MemtestErrorLog log = run(mem, GetParam(), pass);
        total += log.count;
        for (unsigned i = 0; i < log.count && i < kernels::kMemtestLogCapacity; ++i) {
          EXPECT_EQ(log.entries[i].index, 1000U);
          EXPECT_EQ(flipped_bits(log.entries[i].expected, log.entries[i].observed), std::vector<int>{bit});
          EXPECT_EQ((log.entries[i].observed >> bit) & 1ULL, stuck ? 1ULL : 0ULL);
        }
      }
      EXPECT_GE(total, 1U) << to_string(GetParam()) << " bit " << bit << " stuck at " << stuck;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Memtest, EveryPattern, ::testing::ValuesIn(all_memtest_patterns()),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(MemtestPatterns, StuckBitFoundByWalkingPatternsInTheirBitsWord) {
  // Walking ones writes bit (i + step) % 64 in word i: stuck-at-0 bit 5 of word 1000 shows in
  // the step where (1000 + step) % 64 == 5 - if that step exists in the pass. Over the 8 passes
  // that rotate the offset, every bit is reached.
  int caught = 0;
  for (std::uint32_t pass = 0; pass < 8; ++pass) {
    StuckBit mem(kWords, 1000, 5, false);
    caught += run(mem, MemtestPattern::walking_ones, pass).count > 0 ? 1 : 0;
  }
  EXPECT_EQ(caught, 1);
}

TEST(MemtestPatterns, OwnAddressCatchesAliasedAddressLines) {
  for (int line : {0, 3, 11}) {
    AliasedLine mem(kWords, line);
    const MemtestErrorLog log = run(mem, MemtestPattern::own_address);
    // Every word whose index has the line's bit clear was overwritten by its alias (written
    // later, ascending): at least half the words read their alias's address.
    EXPECT_GE(log.count, kWords / 2) << "line " << line;
    const auto& e = log.entries[0];
    EXPECT_EQ(e.index, 0U);
    EXPECT_EQ(e.expected, 0U);
    EXPECT_EQ(e.observed, 1ULL << line);  // the alias's own address
    EXPECT_EQ(flipped_bits(e.expected, e.observed), std::vector<int>{line});
  }
}

TEST(MemtestPatterns, EveryPatternCatchesAnAliasedLine) {
  for (MemtestPattern p : all_memtest_patterns()) {
    if (p == MemtestPattern::moving_inv_ones)
      continue;  // same value everywhere: aliasing invisible by design
    AliasedLine mem(kWords, 4);
    EXPECT_GT(run(mem, p).count, 0U) << to_string(p);
  }
}

TEST(MemtestPatterns, LogKeepsFirstEntriesAndCountsAll) {
  AliasedLine many(kWords, 0);
  const MemtestErrorLog log = run(many, MemtestPattern::random_sequence);
  EXPECT_EQ(log.count, kWords / 2);
  EXPECT_EQ(log.entries[kernels::kMemtestLogCapacity - 1].index, 2U * (kernels::kMemtestLogCapacity - 1));
}

TEST(MemtestPatterns, ValuesDifferAcrossPassesAndSteps) {
  using kernels::memtest_value;
  EXPECT_NE(memtest_value(MemtestPattern::random_sequence, 1, 0, 0, 5),
            memtest_value(MemtestPattern::random_sequence, 1, 1, 0, 5));
  EXPECT_EQ(memtest_value(MemtestPattern::moving_inv_random, 1, 0, 1, 5),
            ~memtest_value(MemtestPattern::moving_inv_random, 1, 0, 0, 5));
  EXPECT_EQ(memtest_value(MemtestPattern::own_address, 1, 0, 0, 77), 77U);
  EXPECT_EQ(memtest_value(MemtestPattern::walking_zeros, 1, 0, 0, 3), ~(1ULL << 3));
}

TEST(MemtestPlan, NamesChunksAndDescriptions) {
  for (MemtestPattern p : all_memtest_patterns()) EXPECT_EQ(parse_memtest_pattern(to_string(p)), p);
  EXPECT_FALSE(parse_memtest_pattern("checkerboard"));
  EXPECT_EQ(plan_memtest_chunks(100, 48), (std::vector<std::uint64_t>{48, 48}));
  EXPECT_EQ(plan_memtest_chunks(104, 48), (std::vector<std::uint64_t>{48, 48, 8}));
  EXPECT_TRUE(plan_memtest_chunks(0, 48).empty());
  EXPECT_EQ(memtest_target_bytes(1000, 0.9), 896U);
  const std::string d = describe_memtest_error({0x10, 0x1, 0x3, 1, 0});
  EXPECT_NE(d.find("byte offset 0x80"), std::string::npos) << d;
  EXPECT_NE(d.find("bits 1 flipped 0->1"), std::string::npos) << d;
  EXPECT_EQ(flipped_bits(0xF0, 0x0F), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

}  // namespace
}  // namespace gpuqual
