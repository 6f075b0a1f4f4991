#pragma once
// `gpuqual nccl`: the all-reduce across nodes, one process per GPU, started by mpirun.
// cmd_nccl.cpp reads the flags (the same parameters as the suite's nccl_allreduce check) and,
// in a build with MPI, calls run_nccl_multinode (runner/multinode/mpi_nccl_multinode.cpp): rank 0 makes
// the NCCL unique id and MPI broadcasts it; every rank drives the GPU of its node-local rank;
// rank 0 gathers every rank's report, writes one node-spanning run record and judges it.
#include <optional>
#include <string>

#include "core/record/record.hpp"
#include "device/nccl_allreduce/nccl_allreduce_params.hpp"
#include "runner/reporters/report_options.hpp"

namespace gpuqual {

struct NcclCommandOptions {
  AllreduceParams params;
  double budget_s = 120;          // soft budget of all measurements together
  std::string output;             // record path; empty: results/nccl-multinode-<UTC>.json
  std::string baseline = "auto";  // auto | FILE | none
  std::string baselines_dir;
  std::string class_override;
  std::string labels_file;
  ReportOptions report;
};

// Rank 0 returns the verdict's exit code; every other rank returns 0 once it has sent its report.
int run_nccl_multinode(const NcclCommandOptions& options);

// Rank 0's end of the run (no MPI in it): write `record` atomically to `path` and judge the file
// as `gpuqual compare` reads it; returns the exit code. `baseline` may be null (inconclusive)
// when options.baseline is auto and nothing matched; with "none" nothing is judged and the exit
// code follows the check's status. Defined in cmd_nccl.cpp.
struct Baseline;
int write_and_judge_nccl_record(const RunRecord& record, const std::string& path, const Baseline* baseline,
                                const NcclCommandOptions& options);

}  // namespace gpuqual
