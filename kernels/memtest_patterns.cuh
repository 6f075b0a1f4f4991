#pragma once
// The memtest patterns as pure functions of (pattern, seed, pass, step, word index), shared by
// the GPU kernels and the host reference the CPU tests run (GPUQUAL_HD).
//
// A pattern is a sequence of steps over 64-bit words: step 0 writes value(0, i); each later step
// s verifies value(s - 1, i) and writes value(s, i); a final sweep verifies the last step's
// value. Every read is compared with what was written, so a flipped bit, a stuck bit or an
// aliased address (two addresses reaching one cell) shows up as a wrong word at a known index.
//
//  walking_ones / walking_zeros: one bit set (clear) per word, the bit's position rotating with
//    the word index and the step, so every data line and every bit of every word sees 0 and 1.
//  own_address: each word holds its own index, then its complement: aliased address lines make
//    one word read another's address.
//  moving_inv_ones: all zeros, all ones, all zeros (memtest86's moving inversions, ones/zeros).
//  moving_inv_random: a seeded random word, its complement, the word again.
//  random_sequence: one seeded random word per index, a different stream every pass.
#include <cstdint>

#include "kernels/hd.cuh"
#include "kernels/seeded_hash.cuh"

namespace gpuqual::kernels {

enum class MemtestPattern : std::uint32_t {
  walking_ones = 0,
  walking_zeros = 1,
  own_address = 2,
  moving_inv_ones = 3,
  moving_inv_random = 4,
  random_sequence = 5,
};
inline constexpr std::uint32_t kMemtestPatternCount = 6;

// Steps that write (walking patterns rotate through 8 bit offsets per pass: pass p starts at a
// different offset so a few passes cover all 64).
GPUQUAL_HD inline std::uint32_t memtest_steps(MemtestPattern p) {
  switch (p) {
    case MemtestPattern::walking_ones:
    case MemtestPattern::walking_zeros:
      return 8;
    case MemtestPattern::own_address:
      return 2;
    case MemtestPattern::moving_inv_ones:
    case MemtestPattern::moving_inv_random:
      return 3;
    case MemtestPattern::random_sequence:
      return 1;
  }
  return 1;
}

// The word step `step` of pass `pass` writes at global word index `index`.
GPUQUAL_HD inline std::uint64_t memtest_value(MemtestPattern p, std::uint64_t seed, std::uint32_t pass,
                                              std::uint32_t step, std::uint64_t index) {
  switch (p) {
    case MemtestPattern::walking_ones:
      return 1ULL << ((index + step + 8ULL * pass) & 63ULL);
    case MemtestPattern::walking_zeros:
      return ~(1ULL << ((index + step + 8ULL * pass) & 63ULL));
    case MemtestPattern::own_address:
      return step == 0 ? index : ~index;
    case MemtestPattern::moving_inv_ones:
      return (step & 1U) ? ~0ULL : 0ULL;
    case MemtestPattern::moving_inv_random: {
      const std::uint64_t r = seeded_hash(seed, 2ULL * pass, index);
      return (step & 1U) ? ~r : r;
    }
    case MemtestPattern::random_sequence:
      return seeded_hash(seed, 2ULL * pass + 1ULL, index);
  }
  return 0;
}

// One bad word as the error log keeps it.
struct MemtestErrorEntry {
  std::uint64_t index;  // global word index (byte offset = 8 x index)
  std::uint64_t expected;
  std::uint64_t observed;
  std::uint32_t step;  // the step whose value was being verified
  std::uint32_t pad;
};

inline constexpr std::uint32_t kMemtestLogCapacity = 16;

// A counter of every bad word and the first kMemtestLogCapacity of them (in the order the
// atomic counter handed out slots, which on the GPU is not address order).
struct MemtestErrorLog {
  unsigned long long count;
  MemtestErrorEntry entries[kMemtestLogCapacity];
};

// Compares a read word with the expected one: true when they differ. The kernels and the host
// reference both decide through this, so the test exercises the same comparison.
GPUQUAL_HD inline bool memtest_word_bad(std::uint64_t expected, std::uint64_t observed) {
  return expected != observed;
}

}  // namespace gpuqual::kernels
