#pragma once
// How much of a GPU's memory a memtest covered, judged (docs/compare.md, "No false pass": no outcome is pass
// by default). The test asks for `fraction_of_free` of the memory free at its start; memory another process
// holds is not free, so a test can meet its target and still leave much of the GPU untested. The rules:
// - 0 bytes tested: error ("tested 0 bytes");
// - fewer bytes than the target: error, with both amounts and why (allocation);
// - the target met but below the configured share of the GPU's total memory, less a 5 %
//   allowance for the driver's and the CUDA context's own reservations: warn, naming the
//   untested amount held elsewhere.
#include <cstdint>
#include <string>

#include "core/record/status.hpp"

namespace gpuqual {

inline constexpr double kMemtestReservedAllowance = 0.05;

struct MemtestCoverageInput {
  std::uint64_t total_bytes = 0;
  std::uint64_t free_bytes = 0;    // at the test's start
  std::uint64_t target_bytes = 0;  // fraction_of_free × free (capped by max_mib)
  std::uint64_t tested_bytes = 0;
  double fraction_of_free = 0.9;
  bool capped = false;  // max_mib set: a smaller target is the operator's choice
  std::string allocation_note;
};

struct MemtestCoverage {
  Status status = Status::pass;
  std::string reason;  // empty for pass
};

MemtestCoverage judge_memtest_coverage(const MemtestCoverageInput& in);

}  // namespace gpuqual
