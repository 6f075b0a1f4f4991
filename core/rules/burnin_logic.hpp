#pragma once
// The plain rules of burn-in, tested on the CPU: bit-exact comparison of repeated GEMM results
// (a fixed algorithm on fixed inputs must give the same bits every time, as gpu-burn relies on),
// the stop/duration accounting, and which telemetry is worth a finding.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rules/telemetry_summary.hpp"

namespace gpuqual {

// Compares each iteration's output hash with the first one's.
class ResultComparator {
 public:
  // Returns true when `hash` matches the reference (the first observed hash becomes it).
  bool observe(std::uint64_t iteration, std::uint64_t hash);
  std::uint64_t iterations() const { return iterations_; }
  std::uint64_t mismatches() const { return mismatches_; }
  std::optional<std::uint64_t> reference() const { return reference_; }
  std::optional<std::uint64_t> first_mismatch_iteration() const { return first_bad_; }
  std::optional<std::uint64_t> first_mismatch_hash() const { return first_bad_hash_; }
  // "3 of 1200 iterations differed from iteration 0 (first: iteration 17, hash 0x... vs 0x...)"
  std::string describe() const;

 private:
  std::optional<std::uint64_t> reference_, first_bad_, first_bad_hash_;
  std::uint64_t iterations_ = 0, mismatches_ = 0;
};

// Why a burn-in that ran `elapsed_s` of `target_s` is incomplete, or nullopt when it reached
// `min_s` (the suite's minimum duration). "stopped after 12 of 120 minutes".
std::optional<std::string> burnin_incomplete_reason(double elapsed_s, double target_s, double min_s);

// Thresholds for telemetry findings.
struct BurninThresholds {
  double throttled_fraction_warn = 0.05;  // thermal/HW slowdown more than 5 % of the time
};

// One telemetry finding (code, severity name, detail) or none; pure, for the check and tests.
struct TelemetryVerdict {
  bool throttle_warn = false;
  std::string throttle_detail;
  bool ecc_fail = false;
  std::string ecc_detail;
};
TelemetryVerdict judge_telemetry(const TelemetrySummary& s, const BurninThresholds& t);

// What a burn-in could not watch, each a warn (a pass only on what was measured: docs/compare.md, "No false
// pass"): no telemetry sample on a GPU (throttling and ECC growth cannot be judged), the Xid watch off (an
// Xid during the load would go unseen). Empty when both were watched.
std::vector<std::string> burnin_unwatched(std::size_t telemetry_samples, bool xid_watch_on,
                                          const std::string& xid_off_reason);

}  // namespace gpuqual
