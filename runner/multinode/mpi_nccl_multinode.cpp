// `gpuqual nccl` under mpirun (compiled only with GPUQUAL_WITH_MPI; runner/multinode/nccl_multinode.hpp).
//
// Every MPI call below is made by every rank in the same order, whatever happened locally:
// local failures are carried in flags and reports, never in exceptions that would make one rank
// skip a collective the others wait in. The order:
//   gather hosts -> rank 0 prepares (inventory, baseline, output) -> broadcast go/no-go ->
//   broadcast the NCCL unique id -> agree that every rank has a usable GPU -> the benchmark
//   (its own agreements, nccl_allreduce_bench.hpp) -> gather reports -> MPI_Finalize ->
//   rank 0 writes the record and judges it.
#include <fmt/format.h>
#include <nccl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <random>

#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "core/base/version.hpp"
#include "core/baseline/baseline.hpp"
#include "device/cuda/cuda_gpus.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/nccl/nccl_local_comms.hpp"
#include "device/nccl_allreduce/nccl_allreduce_bench.hpp"
#include "device/node/inventory.hpp"
#include "runner/multinode/mpi_session.hpp"
#include "runner/multinode/nccl_multinode.hpp"
#include "runner/multinode/nccl_rank_device.hpp"
#include "runner/multinode/nccl_rank_report.hpp"
#include "runner/run/run_identity.hpp"

namespace gpuqual {

namespace {

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

// What rank 0 settles before anything is measured, so bad input stops every rank at once.
struct RootPlan {
  Inventory inventory;
  std::unique_ptr<Baseline> baseline;
  std::string output;
};

RootPlan plan_root(const NcclCommandOptions& o, const std::vector<std::string>& hosts,
                   std::chrono::system_clock::time_point now) {
  RootPlan plan;
  InventoryOptions inv_options;
  inv_options.class_override = o.class_override;
  inv_options.k8s_labels_file = o.labels_file;
  plan.inventory = collect_inventory(inv_options);
  const std::string& slug = plan.inventory.hardware_class.slug;
  plan.output = o.output.empty() ? fmt::format("results/nccl-multinode-{}.json", utc_compact(now)) : o.output;
  if (o.baseline == "none") return plan;
  if (o.baseline != "auto") {
    plan.baseline = std::make_unique<Baseline>(load_baseline(o.baseline));
  } else {
    // Multi-node figures belong to a topology, not to one node: their own baseline file.
    const std::string topology = uniform_topology(hosts);
    const std::string dir = baselines_dir(o.baselines_dir);
    if (slug == "unknown") {
      std::fprintf(stderr,
                   "gpuqual nccl: hardware class unknown on rank 0's node: no baseline is looked up, "
                   "the verdict will be inconclusive\n");
    } else if (topology.empty()) {
      std::fprintf(stderr,
                   "gpuqual nccl: ranks are spread unevenly over the nodes (%s): no baseline is looked up, "
                   "the verdict will be inconclusive\n",
                   host_layout(hosts).c_str());
    } else {
      const std::string key = slug + ".nccl-" + topology;
      const std::string path = resolve_baseline("auto", key, dir);
      if (path.empty()) {
        std::fprintf(
            stderr,
            "gpuqual nccl: no baseline %s/%s.yaml for class %s on %s: the verdict will be inconclusive\n",
            dir.c_str(), key.c_str(), slug.c_str(), topology.c_str());
      } else {
        plan.baseline = std::make_unique<Baseline>(load_baseline(path));
      }
    }
  }
  if (plan.baseline && plan.baseline->hardware_class != slug) {
    throw InputError(
        plan.baseline->origin, "$.hardware_class",
        fmt::format("baseline is for class {} but rank 0's node is class {} (use --class to override)",
                    plan.baseline->hardware_class, slug));
  }
  return plan;
}

// This rank's GPU (choose_rank_device: its node-local rank's, or device 0 when the launcher gave
// it one GPU through CUDA_VISIBLE_DEVICES). Never throws.
NcclRankReport ready_report(int rank, int local_rank, int local_size, const std::string& host) {
  NcclRankReport me;
  me.rank = rank;
  me.local_rank = local_rank;
  me.host = host;
  me.outcome.record_gpu = rank;
  const CudaProbe probe = probe_cuda();
  if (!probe.ok()) {
    me.ready = probe.no_device ? Status::skip : Status::error;
    me.ready_reason = probe.reason;
    return me;
  }
  const char* bound = std::getenv("CUDA_VISIBLE_DEVICES");
  const RankDevice device = choose_rank_device(local_rank, local_size, probe.device_count,
                                               bound ? std::optional<std::string>(bound) : std::nullopt);
  if (device.device < 0) {
    me.ready = Status::error;
    me.ready_reason = device.why;
    return me;
  }
  me.gpu = device.device;
  CudaGpuScan scan = scan_cuda_gpus();
  if (static_cast<std::size_t>(me.gpu) < scan.gpus.size()) {
    me.gpu_info = scan.gpus[static_cast<std::size_t>(me.gpu)];
  } else {
    me.gpu_info = GpuInfo{};
    me.gpu_info->name = "unknown";
  }
  me.gpu_info->index = rank;
  return me;
}

// Rank 0's preparation, or the error that stops every rank (rethrown on rank 0 once MPI is done).
struct Preflight {
  RootPlan plan;
  std::exception_ptr error;
};

Preflight prepare_on_root(const NcclCommandOptions& o, const std::vector<std::string>& hosts, int size,
                          std::chrono::system_clock::time_point started) {
  Preflight pre;
  std::fprintf(stderr, "gpuqual nccl: %d ranks on %s\n", size, host_layout(hosts).c_str());
  try {
    pre.plan = plan_root(o, hosts, started);
  } catch (...) {
    pre.error = std::current_exception();
  }
  return pre;
}

// The NCCL unique id: made by rank 0, the same bytes everywhere (every rank broadcasts).
struct SharedId {
  ncclUniqueId id{};
  std::string error;  // rank 0's: ncclGetUniqueId failed
};

SharedId share_unique_id(RankSync& world, int rank) {
  SharedId shared;
  if (rank == 0) {
    const ncclResult_t st = ncclGetUniqueId(&shared.id);
    if (st != ncclSuccess) shared.error = std::string("ncclGetUniqueId: ") + ncclGetErrorString(st);
  }
  unsigned char* bytes = reinterpret_cast<unsigned char*>(&shared.id);
  world.broadcast(std::span<unsigned char>(bytes, sizeof shared.id), 0);
  return shared;
}

// The benchmark on this rank's GPU, with every other rank (its own agreements).
AllreduceBenchOutcome run_rank_bench(const NcclCommandOptions& o, RankSync& world, const ncclUniqueId& id,
                                     NcclRankReport& me) {
  AllreduceBenchSetup setup;
  setup.gpus = {me.gpu};
  setup.ranks = {me.rank};
  setup.record_gpus = {me.rank};
  setup.nranks = world.size();
  setup.id = id;
  setup.sync = &world;
  setup.budget_s = o.budget_s;
  if (me.rank == 0)
    setup.progress = [](const std::string& text) {
      std::fprintf(stderr, "gpuqual nccl: %s\n", text.c_str());
    };
  AllreduceBenchOutcome out = run_allreduce_bench(o.params, setup);
  me.local_error = out.local_error;
  if (!out.gpus.empty()) me.outcome = out.gpus.front();
  return out;
}

// Every rank's report as rank 0 gathered it; one that does not read is that rank's error.
std::vector<NcclRankReport> read_rank_reports(const std::vector<std::string>& texts,
                                              const std::vector<std::string>& hosts) {
  std::vector<NcclRankReport> reports;
  for (int r = 0; r < static_cast<int>(texts.size()); ++r) {
    try {
      reports.push_back(rank_report_from_json(texts[static_cast<std::size_t>(r)], r));
    } catch (const std::exception& e) {
      NcclRankReport bad;
      bad.rank = r;
      bad.host =
          static_cast<std::size_t>(r) < hosts.size() ? hosts[static_cast<std::size_t>(r)] : "unknown-host";
      bad.ready = Status::error;
      bad.ready_reason = e.what();
      bad.local_error = e.what();
      reports.push_back(std::move(bad));
    }
  }
  return reports;
}

std::map<std::string, std::string> multinode_attributes(const MpiSession& mpi,
                                                        const std::vector<std::string>& hosts, int size) {
  std::map<std::string, std::string> attributes;
  attributes["nccl.bootstrap"] = "MPI (" + mpi.library_version() + ")";
  attributes["nccl.hosts"] = host_layout(hosts);
  attributes["nccl.ranks"] = std::to_string(size);
  attributes["nccl.version"] = nccl_version_string();
  for (const auto& [k, v] : nccl_environment()) attributes["nccl.env." + k] = v;
  return attributes;
}

// The record rank 0 writes: rank 0's node, and one GPU a rank.
RunRecord multinode_record(const RootPlan& plan, const std::vector<NcclRankReport>& reports,
                           CheckResult check, std::chrono::system_clock::time_point started) {
  RunRecord record;
  record.tool = {tool_version(), git_revision()};
  record.run_id = new_run_id();
  record.started_at = utc_rfc3339(started);
  record.ended_at = utc_now_rfc3339();
  record.complete = true;
  record.argv = own_argv();
  record.suite = "nccl-multinode";
  record.node = plan.inventory.node;
  record.hardware_class = plan.inventory.hardware_class;
  record.gpus = multinode_record_gpus(reports);
  record.hardware_class.gpu_count = static_cast<int>(record.gpus.size());  // every rank's GPU
  record.checks.push_back(std::move(check));
  return record;
}

}  // namespace

int run_nccl_multinode(const NcclCommandOptions& o) {
  const auto started = std::chrono::system_clock::now();
  const auto started_steady = std::chrono::steady_clock::now();
  std::unique_ptr<MpiSession> mpi = start_mpi_session();
  RankSync& world = mpi->world();
  const int rank = world.rank();
  const int size = world.size();
  const std::string host = this_host();
  const std::vector<std::string> hosts = world.gather_to_root(host);

  // Rank 0 prepares; bad input (a baseline file, a labels file) stops every rank before work.
  Preflight pre;
  if (rank == 0) pre = prepare_on_root(o, hosts, size, started);
  unsigned char go = pre.error ? 0 : 1;
  world.broadcast(std::span<unsigned char>(&go, 1), 0);
  if (!go) {
    mpi->finalize();
    if (rank == 0) std::rethrow_exception(pre.error);
    return kExitPass;
  }

  const SharedId shared = share_unique_id(world, rank);
  NcclRankReport me = ready_report(rank, mpi->local_rank(), mpi->local_size(), host);
  if (!shared.error.empty()) {
    me.ready = Status::error;
    me.ready_reason = shared.error;
  }
  const bool everyone_ready = !world.any(me.ready != Status::pass);
  std::optional<AllreduceBenchOutcome> out;
  if (everyone_ready && size >= 2) out = run_rank_bench(o, world, shared.id, me);

  const std::vector<std::string> texts = world.gather_to_root(rank_report_to_json(me));
  mpi->finalize();
  if (rank != 0) return kExitPass;

  const std::vector<NcclRankReport> reports = read_rank_reports(texts, hosts);
  const std::map<std::string, std::string> attributes = multinode_attributes(*mpi, hosts, size);
  CheckResult check = multinode_check_result(reports, out ? &*out : nullptr, attributes);
  check.started_at = utc_rfc3339(started);
  check.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_steady).count();
  const RunRecord record = multinode_record(pre.plan, reports, std::move(check), started);
  return write_and_judge_nccl_record(record, pre.plan.output, pre.plan.baseline.get(), o);
}

}  // namespace gpuqual
