#pragma once
// What each rank of `gpuqual nccl` sends to rank 0 (as JSON text over MPI_Gatherv), and how
// rank 0 turns every rank's report into the one node-spanning `nccl_allreduce` check result.
// No MPI here: unit tests build reports by hand.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "device/nccl_allreduce/nccl_allreduce_bench.hpp"

namespace gpuqual {

struct NcclRankReport {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  int gpu = -1;                     // the CUDA device this rank drives; -1 when none
  std::optional<GpuInfo> gpu_info;  // its facts from CUDA (index = the rank)
  // Whether this rank could take part: skip (no GPU for it) or error (CUDA unusable), with why.
  Status ready = Status::pass;
  std::string ready_reason;
  std::string local_error;      // what failed on this rank during the benchmark
  AllreduceGpuOutcome outcome;  // its GPU's statuses and findings (record_gpu = rank)
};

std::string rank_report_to_json(const NcclRankReport& report);
// Throws std::runtime_error naming the rank when the text is not a report.
NcclRankReport rank_report_from_json(const std::string& text, int rank);

// Rank 0's view. `agreed` is rank 0's benchmark outcome, null when the benchmark did not run
// (a rank was not ready, or fewer than 2 ranks). `attributes` are added (NCCL version and
// environment, bootstrap, hosts) whether or not it ran.
CheckResult multinode_check_result(const std::vector<NcclRankReport>& reports,
                                   const AllreduceBenchOutcome* agreed,
                                   const std::map<std::string, std::string>& attributes);

// The record's GPUs: each rank's, in rank order (index = the rank). They sit on several hosts, so
// the bus id of a GPU on another host than rank 0's is qualified by its host
// ("node-b/0000:19:00.0": one slot of two machines is not one card counted twice), and a GPU
// without a UUID is named by its slot (docs/hardware-class.md, "Identity").
std::vector<GpuInfo> multinode_record_gpus(const std::vector<NcclRankReport>& reports);

// Hosts in rank order with their rank counts: "node-a:8,node-b:8".
std::string host_layout(const std::vector<std::string>& host_of_rank);
// "2x8" when every host has the same number of ranks, "" otherwise.
std::string uniform_topology(const std::vector<std::string>& host_of_rank);

}  // namespace gpuqual
