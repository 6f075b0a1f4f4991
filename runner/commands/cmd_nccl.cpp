// `gpuqual nccl`: the NCCL all-reduce across nodes under mpirun, one rank per GPU
// (docs/nccl.md). This file holds what needs no MPI: the flags (turned
// into the same parameters the suite's nccl_allreduce check reads), the checks made before
// anything starts, and rank 0's end (write the record, judge it). The MPI part is
// runner/multinode/mpi_nccl_multinode.cpp, compiled only with GPUQUAL_WITH_MPI.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/baseline/baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/record/record_io.hpp"
#include "runner/cli/class_option.hpp"
#include "runner/cli/command.hpp"
#include "runner/multinode/nccl_multinode.hpp"
#include "runner/reporters/report_options.hpp"

namespace gpuqual {

namespace {

struct NcclArgs {
  std::vector<std::string> sizes{"8K", "64M", "512M", "2G"};
  std::vector<std::string> dtypes{"float", "bf16"};
  std::vector<std::string> placements{"out_of_place", "in_place"};
  int check_iters = 5;
  double step_timeout_s = 60;
  double budget_s = 120;
  std::int64_t seed = 1;
  double target_cv = 0.005;
  NcclCommandOptions options;
};

// OpenMPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx and PMI launchers (srun) set theirs.
bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* v = std::getenv(name); v && *v) return true;
  }
  return false;
}

// The flags as the suite's params: one reader (read_allreduce_params) checks both.
nlohmann::json params_json(const NcclArgs& a) {
  return nlohmann::json{{"sizes", a.sizes},
                        {"dtypes", a.dtypes},
                        {"placements", a.placements},
                        {"check_iters", a.check_iters},
                        {"timeout_s", a.step_timeout_s},
                        {"seed", a.seed},
                        {"target_cv", a.target_cv}};
}

int run_nccl(NcclArgs a) {
  NcclCommandOptions& o = a.options;
  o.params = read_allreduce_params(params_json(a), "gpuqual nccl");
  if (!(a.budget_s > 0 && a.budget_s <= 86400))
    throw InputError("gpuqual nccl", "--budget", "must be between 0 and 86400 s");
  o.budget_s = a.budget_s;
  if (o.baseline == "none" && uses_report_flags(o.report)) {
    throw InputError("--baseline none", "",
                     "--format json, --junit, --prometheus and --markdown report a verdict; "
                     "with --baseline none nothing is judged (judge later: gpuqual compare RECORD)");
  }
  if (!launched_by_mpirun()) {
    throw InputError(
        "gpuqual nccl", "",
        "not started by mpirun: this is the multi-node all-reduce, one rank per GPU "
        "(mpirun -np 16 gpuqual nccl ...); on one node use gpuqual run --suite canary --only nccl_allreduce");
  }
#if defined(GPUQUAL_HAVE_MPI)
  return run_nccl_multinode(o);
#else
  std::fprintf(stderr,
               "gpuqual: error: this gpuqual was built without MPI (cmake -DGPUQUAL_WITH_MPI=OFF): "
               "the multi-node all-reduce cannot run; rebuild with GPUQUAL_WITH_MPI=ON\n");
  std::printf("gpuqual nccl: inconclusive: built without MPI, nothing measured\n");
  return kExitInconclusive;
#endif
}

}  // namespace

int write_and_judge_nccl_record(const RunRecord& record, const std::string& path, const Baseline* baseline,
                                const NcclCommandOptions& options) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) fs::create_directories(parent, ec);
  try {
    write_record(path, record);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuqual: error: cannot write the run record %s: %s\n", path.c_str(), e.what());
    std::printf("gpuqual nccl: inconclusive: the run record could not be written\n");
    return kExitInconclusive;
  }
  std::fprintf(stderr, "gpuqual nccl: record written: %s\n", path.c_str());
  if (options.baseline == "none") {
    Status worst = Status::pass;
    std::string reason;
    for (const auto& c : record.checks) {
      worst = worse_of(worst, c.status);
      if (!c.reason.empty()) reason += (reason.empty() ? "" : "; ") + c.name + ": " + c.reason;
    }
    std::printf("gpuqual nccl: %s, not judged (--baseline none)%s%s; record %s\n",
                std::string(to_string(worst)).c_str(), reason.empty() ? "" : ": ", reason.c_str(),
                path.c_str());
    return exit_code_of(worst);
  }
  // Judge the file as written, exactly as `gpuqual compare` would read it.
  const RunRecord on_disk = read_record(path);
  return emit_reports(compare_record(on_disk, baseline, CompareOptions{options.report.strict}),
                      options.report);
}

void add_nccl_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<NcclArgs>();
  CLI::App* cmd = app.add_subcommand(
      "nccl",
      "Multi-node NCCL all-reduce under mpirun (one rank per GPU); rank 0 writes one record and judges it");
  cmd->add_option("--sizes", args->sizes, "Message sizes (8K, 64M, 2G, 512MiB or bytes)")
      ->delimiter(',')
      ->capture_default_str()
      ->type_name("LIST");
  cmd->add_option("--dtypes", args->dtypes, "Data types: float, bf16")
      ->delimiter(',')
      ->capture_default_str()
      ->type_name("LIST");
  cmd->add_option("--placements", args->placements, "out_of_place, in_place")
      ->delimiter(',')
      ->capture_default_str()
      ->type_name("LIST");
  cmd->add_option("--check-iters", args->check_iters, "Verified all-reduces per size, type and placement")
      ->capture_default_str();
  cmd->add_option("--step-timeout", args->step_timeout_s,
                  "Seconds one NCCL step (init, a sample, a check) may take before every rank aborts")
      ->capture_default_str()
      ->type_name("SECONDS");
  cmd->add_option("--budget", args->budget_s, "Soft time budget of all measurements together")
      ->capture_default_str()
      ->type_name("SECONDS");
  cmd->add_option("--target-cv", args->target_cv, "Sample until the CV is at most this (or the budget ends)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the data patterns")->capture_default_str();
  cmd->add_option("--output", args->options.output,
                  "Run record rank 0 writes (default: results/nccl-multinode-<UTC>.json)")
      ->type_name("FILE");
  cmd->add_option(
         "--baseline", args->options.baseline,
         "auto (<baselines-dir>/<class>.nccl-<nodes>x<ranks per node>.yaml), a baseline YAML file, or none")
      ->capture_default_str();
  cmd->add_option("--baselines-dir", args->options.baselines_dir,
                  "Where --baseline auto looks (default: $GPUQUAL_BASELINES_DIR, the installed "
                  "share/gpuqual/baselines, "
                  "or the source tree's baselines/)")
      ->type_name("DIR");
  add_class_option(cmd, args->options.class_override,
                   "Use this hardware class instead of rank 0's derived one");
  cmd->add_option("--labels-file", args->options.labels_file,
                  "Kubernetes node labels file (key=value lines) for the record")
      ->type_name("PATH");
  add_report_options(cmd, args->options.report);
  cmd->callback([args, &selected] { selected = [args] { return run_nccl(*args); }; });
}

}  // namespace gpuqual
