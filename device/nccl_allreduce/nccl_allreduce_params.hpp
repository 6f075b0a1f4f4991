#pragma once
// The all-reduce check's parameters, read strictly from the suite's `params` (an unknown or
// mistyped key is an InputError naming it). `gpuqual nccl` builds the same JSON from its flags,
// so both modes accept exactly the same values:
//   sizes        [8KiB, 64MiB, 512MiB, 2GiB]   strings ("64M", "2GiB", "8K") or byte counts;
//                                              multiples of 4 bytes, at most 64 GiB, no repeats
//   dtypes       [float, bf16]
//   placements   [out_of_place, in_place]
//   check_iters  5      verified all-reduces per size, type and placement (nccl-tests' -c)
//   timeout_s    60     longest wait for one NCCL step (init, a sample, a check) before the
//                       communicators are aborted and the check is `error` ("timed out after N s")
//   and the common measurement keys (measure_params.hpp): target_cv, min_samples, max_samples,
//   warmup_s, min_sample_s, measure_budget_s, seed.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/measure/measure_params.hpp"
#include "device/nccl_allreduce/nccl_allreduce_plan.hpp"

namespace gpuqual {

struct AllreduceParams {
  std::vector<std::uint64_t> sizes;
  std::vector<ReduceType> types;
  std::vector<bool> in_place;  // false = out-of-place
  int check_iters = 5;
  double timeout_s = 60;
  CommonBenchParams common;

  std::vector<AllreduceItem> items() const { return plan_allreduce(types, in_place, sizes); }
  std::uint64_t max_bytes() const;
};

inline constexpr std::uint64_t kAllreduceMaxBytes = std::uint64_t{64} << 30;

// `file` names the source in errors ("suite", or "gpuqual nccl" for flags).
AllreduceParams read_allreduce_params(const nlohmann::json& params, const std::string& file);

}  // namespace gpuqual
