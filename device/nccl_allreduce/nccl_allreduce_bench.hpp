#pragma once
// The all-reduce benchmark of one process, shared by the one-node check (one process, every GPU
// of the node, LocalRankSync) and `gpuqual nccl` under mpirun (one process per GPU, MPI sync):
//   1. allocate buffers, 2. create the communicators, 3. per (type, placement, size): measure
//      with the engine (warm-up, samples until the CV target or the budget), then check
//      `check_iters` fresh all-reduces element by element on every GPU, 4. finalize.
// Every step ends with an agreement over the ranks (RankSync): if any rank failed, all stop
// there, abort their communicators and report it; nothing waits for a rank that left.
// Never throws for device, NCCL or timeout problems: they are in the outcome.
#include <nccl.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "device/nccl/nccl_rank_sync.hpp"
#include "device/nccl_allreduce/nccl_allreduce_params.hpp"

namespace gpuqual {

struct AllreduceBenchSetup {
  std::vector<int> gpus;         // CUDA devices this process drives
  std::vector<int> ranks;        // their ranks in the clique
  std::vector<int> record_gpus;  // their index in the record (GPU index on one node, the rank across nodes)
  int nranks = 0;
  ncclUniqueId id{};  // identical on every rank (made by rank 0, broadcast)
  RankSync* sync = nullptr;
  double budget_s = 60;                              // soft budget of all measurements together
  std::function<bool()> should_stop;                 // the run is being stopped
  std::function<void(const std::string&)> progress;  // optional
};

// What one local GPU showed: wrong results are facts of that GPU.
struct AllreduceGpuOutcome {
  int record_gpu = 0;
  Status status = Status::pass;
  std::vector<std::string> notes;
  std::vector<Finding> findings;
};

struct AllreduceBenchOutcome {
  // Identical on every rank (every input to them was agreed on):
  std::vector<Metric> metrics;                    // node scope, named per size
  std::map<std::string, std::string> attributes;  // parameters, NCCL version and environment, stops
  Status status = Status::pass;                   // measurement quality (warn), stop requests
  std::vector<std::string> notes;
  bool aborted = false;    // some rank failed: everything stopped at `aborted_at`
  std::string aborted_at;  // "NCCL init", "float 2GiB out-of-place: measurement", ...
  // This rank's own:
  std::string local_error;                // what failed here ("" when it was another rank)
  std::vector<AllreduceGpuOutcome> gpus;  // one per setup.gpus
};

AllreduceBenchOutcome run_allreduce_bench(const AllreduceParams& params, const AllreduceBenchSetup& setup);

// NCCL_* variables of this process's environment (NCCL_DEBUG, NCCL_ALGO, NCCL_IB_HCA, ...).
std::map<std::string, std::string> nccl_environment();

// Text for an aborted run as seen from one process: "<aborted_at>: <local_error>".
std::string aborted_reason(const AllreduceBenchOutcome& outcome);

}  // namespace gpuqual
