#pragma once
// The `nccl_allreduce` check result from what the benchmark produced: node-scope metrics,
// `nccl.wrong_result` findings and a status per GPU, and one reason that says first what stopped
// the run (where, and on which rank) and then what each GPU showed. Used by the one-node check
// and by rank 0 of `gpuqual nccl`, which has every rank's GPUs and errors.
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "device/nccl_allreduce/nccl_allreduce_bench.hpp"

namespace gpuqual {

inline constexpr const char* kNcclAllreduceCheck = "nccl_allreduce";

// `agreed`: any rank's outcome (its metrics, attributes, notes and abort point are the same on
// every rank). `gpus`: every rank's GPU outcomes. `errors`: why the ranks that failed did
// ("ranks 3,7 (node-b): timed out after 60 s ..."); empty when nothing failed.
CheckResult allreduce_check_result(const AllreduceBenchOutcome& agreed,
                                   const std::vector<AllreduceGpuOutcome>& gpus,
                                   const std::vector<std::string>& errors);

// "0-3,5,7-8": ranks in ascending order as ranges.
std::string rank_ranges(std::vector<int> ranks);

// One entry per distinct message, ranks with the same message together:
// {"rank 0 (node-a): X", "ranks 1-2 (node-b): Y"}.
struct RankMessage {
  int rank = 0;
  std::string host;
  std::string message;
};
std::vector<std::string> group_rank_messages(const std::vector<RankMessage>& messages);

}  // namespace gpuqual
