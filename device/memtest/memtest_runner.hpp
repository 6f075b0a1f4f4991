#pragma once
// Memtest on the current device: allocate fraction x free device memory in chunks, run every
// pattern over every chunk for `passes` passes, and collect per pattern the count of bad words
// and the first few (address, expected, observed). Used by the memtest check and by burn-in.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/memtest/memtest_plan.hpp"

namespace gpuqual {

struct MemtestConfig {
  double fraction_of_free = 0.9;
  std::uint32_t passes = 1;
  std::vector<MemtestPattern> patterns = all_memtest_patterns();
  std::uint64_t chunk_bytes = 1ULL << 30;
  std::uint64_t max_bytes = 0;  // 0: no cap (tests cap the region to stay short)
  std::uint64_t seed = 1;
  unsigned threads_per_block = 256;
};

struct MemtestPatternResult {
  MemtestPattern pattern = MemtestPattern::walking_ones;
  std::uint32_t passes_run = 0;
  unsigned long long errors = 0;
  std::vector<MemtestErrorEntry> first_errors;  // at most kMemtestLogCapacity per pass, capped overall
};

struct MemtestRunResult {
  std::uint64_t free_bytes = 0, total_bytes = 0;
  std::uint64_t target_bytes = 0;
  std::uint64_t bytes_tested = 0;  // allocated and covered by every pattern run
  std::string allocation_note;     // why less than the target was allocated
  std::uint32_t passes_completed = 0;
  bool stopped = false;  // should_stop() ended it early
  double seconds = 0;
  double bytes_moved = 0;  // read + written, for the bandwidth figure
  std::vector<MemtestPatternResult> patterns;
  unsigned long long total_errors() const;
};

// Test hook: called after a pattern's first (write) step on each chunk with the chunk's device
// pointer and word count, to plant faults the verification must find.
using MemtestCorruptor = std::function<void(MemtestPattern, std::uint64_t* words, std::uint64_t n)>;

// Runs on the current device. Throws CudaError. `should_stop` is polled between steps.
MemtestRunResult run_memtest(const MemtestConfig& config, const std::function<bool()>& should_stop,
                             const MemtestCorruptor& corrupt = {});

}  // namespace gpuqual
