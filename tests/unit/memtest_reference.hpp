#pragma once
// The memtest check loop on the host, over any memory with read(i)/write(i, v): the same steps,
// values and comparison as the GPU kernels (kernels/memtest_patterns.cuh), sequential instead of
// parallel. The CPU tests run it against simulated faulty memory (flipped bits, stuck bits,
// aliased addresses) to show each pattern catches each fault at the right word and bit.
#include <cstdint>

#include "kernels/memtest_patterns.cuh"

namespace gpuqual::kernels {

// Records one bad word like the kernels' error path: count every one, log the first few.
inline void memtest_log_error(MemtestErrorLog& log, std::uint64_t index, std::uint64_t expected,
                              std::uint64_t observed, std::uint32_t step) {
  const unsigned long long slot = log.count++;
  if (slot < kMemtestLogCapacity) log.entries[slot] = MemtestErrorEntry{index, expected, observed, step, 0};
}

// Runs pattern `p` of pass `pass` over words [0, n) of `mem`, whose word 0 has global index
// `base` (chunks of a larger region). Errors accumulate into `log`.
template <class Memory>
void memtest_reference_pattern(Memory& mem, std::uint64_t n, std::uint64_t base, MemtestPattern p,
                               std::uint64_t seed, std::uint32_t pass, MemtestErrorLog& log) {
  const std::uint32_t steps = memtest_steps(p);
  for (std::uint64_t i = 0; i < n; ++i) mem.write(i, memtest_value(p, seed, pass, 0, base + i));
  for (std::uint32_t s = 1; s <= steps; ++s) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t expected = memtest_value(p, seed, pass, s - 1, base + i);
      const std::uint64_t observed = mem.read(i);
      if (memtest_word_bad(expected, observed)) memtest_log_error(log, base + i, expected, observed, s - 1);
      if (s < steps) mem.write(i, memtest_value(p, seed, pass, s, base + i));
    }
  }
}

}  // namespace gpuqual::kernels
