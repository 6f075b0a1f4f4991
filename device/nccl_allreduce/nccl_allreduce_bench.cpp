#include "device/nccl_allreduce/nccl_allreduce_bench.hpp"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <memory>

#include "core/record/metric_summary.hpp"
#include "device/cuda/cuda_error.hpp"
#include "device/measure/measure.hpp"
#include "device/nccl/nccl_local_comms.hpp"
#include "device/nccl_allreduce/nccl_allreduce_runner.hpp"
#include "kernels/seeded_hash.cuh"

extern char** environ;

namespace gpuqual {

namespace {

// A peer rank failed at a point where every rank compares notes: this rank stops too.
class PeerFailed : public std::runtime_error {
 public:
  PeerFailed() : std::runtime_error("another rank failed") {}
};

// Times one item on this process's GPUs; every rank returns the slowest rank's time, so the
// engine takes the same decisions everywhere (nccl_rank_sync.hpp).
class AgreedTimer : public SampleTimer {
 public:
  AgreedTimer(NcclAllreduceRunner& runner, const AllreduceItem& item, double timeout_s, RankSync& sync)
      : runner_(runner), item_(item), timeout_s_(timeout_s), sync_(sync) {}
  double time_reps(int reps) override {
    double v[2] = {0, 0};
    std::exception_ptr local;
    try {
      v[0] = runner_.time_reps(item_, reps, timeout_s_);
    } catch (...) {
      local = std::current_exception();
      v[1] = 1;
    }
    sync_.max_in_place(v);
    if (local) std::rethrow_exception(local);
    if (v[1] > 0) throw PeerFailed();
    return v[0];
  }

 private:
  NcclAllreduceRunner& runner_;
  const AllreduceItem& item_;
  double timeout_s_;
  RankSync& sync_;
};

std::string percent(double fraction) { return fmt::format("{:.2f} %", fraction * 100); }

std::uint64_t check_seed(std::uint64_t seed, std::size_t item, int iteration) {
  return kernels::seeded_hash(seed, 0x636865636bULL + item, static_cast<std::uint64_t>(iteration));
}

class Bench {
 public:
  Bench(const AllreduceParams& params, const AllreduceBenchSetup& setup)
      : p_(params), s_(setup), sync_(*setup.sync) {
    for (int g : setup.record_gpus) out_.gpus.push_back(AllreduceGpuOutcome{g, Status::pass, {}, {}});
  }

  AllreduceBenchOutcome run() {
    record_parameters();
    if (!step("allocating buffers", [&] {
          // The first local GPU becomes current for good: every device guard below restores to
          // it, so a rank that drives GPU 5 never opens a context on GPU 0 (cudaSetDevice makes
          // one since CUDA 12).
          CUDA_CHECK(cudaSetDevice(s_.gpus.front()));
          runner_ = std::make_unique<NcclAllreduceRunner>(s_.gpus, s_.ranks, s_.nranks, p_.max_bytes());
        })) {
      return std::move(out_);
    }
    if (!step("NCCL init", [&] { runner_->connect(s_.id, p_.timeout_s); })) return std::move(out_);
    out_.attributes["nccl.init_s"] = fmt::format("{:.2f}", elapsed_s());

    const auto items = p_.items();
    MeasureConfig config = p_.common.measure;
    config.budget_s = share_budget(s_.budget_s, static_cast<int>(items.size()), p_.common.measure_budget_s);
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (agreed_stop()) {
        out_.status = worse_of(out_.status, Status::error);
        out_.notes.push_back(
            fmt::format("stopped before {}: the run is being stopped", allreduce_item_label(items[i])));
        break;
      }
      if (!run_item(i, items[i], config)) break;
    }
    if (!out_.aborted) step("NCCL finalize", [&] { runner_->finalize(p_.timeout_s); });
    return std::move(out_);
  }

 private:
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  void say(const std::string& text) {
    if (s_.progress) s_.progress(text);
  }

  bool agreed_stop() { return sync_.any(s_.should_stop && s_.should_stop()); }

  // Runs `body` here, then agrees with the other ranks whether everyone succeeded.
  template <class Body>
  bool step(const std::string& what, Body&& body) {
    std::string error;
    bool peer = false;
    try {
      body();
    } catch (const PeerFailed&) {
      peer = true;
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "unknown error";
    }
    if (!sync_.any(peer || !error.empty())) return true;
    out_.aborted = true;
    out_.aborted_at = what;
    out_.local_error = error;
    out_.status = worse_of(out_.status, Status::error);
    if (runner_) runner_->mark_failed();
    return false;
  }

  bool run_item(std::size_t index, const AllreduceItem& item, const MeasureConfig& config) {
    const std::string label = allreduce_item_label(item);
    const std::string prefix = allreduce_metric_prefix(item);
    say("nccl all-reduce " + label + ": measuring");
    MeasureResult m;
    const MeasureHooks hooks{[this] { return sync_.max(elapsed_s()); }, {}, [this] { return agreed_stop(); }};
    // Preparing is local work: its own step, so no rank enters the measurement's agreements
    // while another is already reporting a failure.
    if (!step(label + ": filling buffers", [&] { runner_->prepare(item, p_.common.seed, p_.timeout_s); }))
      return false;
    if (!step(label + ": measurement", [&] {
          AgreedTimer timer(*runner_, item, p_.timeout_s, sync_);
          m = measure(timer, config, hooks);
        })) {
      return false;
    }
    const double bytes = static_cast<double>(item.bytes);
    std::vector<double> us;
    for (double s : m.seconds_per_op) us.push_back(s * 1e6);
    out_.metrics.push_back(
        summarize_metric(prefix + ".time_us", "us", Direction::lower, std::nullopt, us, m.throttled_samples));
    out_.metrics.push_back(rate_metric(prefix + ".algbw_gbps", "GB/s", std::nullopt, m, bytes, 1e9));
    out_.metrics.push_back(rate_metric(prefix + ".busbw_gbps", "GB/s", std::nullopt, m,
                                       bytes * allreduce_bus_factor(s_.nranks), 1e9));
    out_.attributes[prefix + ".timing"] = runner_->timing_note(item);
    out_.attributes[prefix + ".stop"] =
        fmt::format("{} after {} samples of {} runs (CV {})", to_string(m.stop), m.seconds_per_op.size(),
                    m.reps_per_sample, percent(m.cv));
    std::string why;
    const Status quality = measurement_status(m, config, &why);
    if (quality != Status::pass) {
      out_.status = worse_of(out_.status, quality);
      out_.notes.push_back(label + ": " + why);
    }
    if (m.stop == StopReason::stop_requested) {
      out_.status = worse_of(out_.status, Status::error);
      out_.notes.push_back(label + ": stopped while measuring: the run is being stopped");
      return false;
    }

    say("nccl all-reduce " + label + ": checking " + std::to_string(p_.check_iters) + " results");
    std::vector<AllreduceCheckCount> counts(s_.gpus.size());
    for (int it = 0; it < p_.check_iters; ++it) {
      if (!step(label + ": correctness check", [&] {
            runner_->check_once(item, check_seed(p_.common.seed, index, it), p_.timeout_s, counts);
          })) {
        return false;
      }
    }
    for (std::size_t k = 0; k < counts.size(); ++k) record_wrong(k, item, counts[k]);
    return true;
  }

  void record_wrong(std::size_t k, const AllreduceItem& item, const AllreduceCheckCount& c) {
    if (c.wrong == 0) return;
    AllreduceGpuOutcome& g = out_.gpus[k];
    const std::string what = fmt::format(
        "{}: {} wrong elements in {} of {} checked all-reduces of {} elements (first at element {}), rank {}",
        allreduce_item_label(item), c.wrong, c.iterations_wrong, p_.check_iters, item.count(), c.first_wrong,
        s_.ranks[k]);
    g.findings.push_back(Finding{
        .code = "nccl.wrong_result",
        .severity = Severity::fail,
        .gpu = g.record_gpu,
        .detail = what,
        .action = "drain the node; check NVLink/NVSwitch and network error counters and XIDs, run the memory "
                  "test; RMA the GPU if it repeats",
        .value = static_cast<double>(c.wrong),
    });
    g.status = Status::fail;
    g.notes.push_back("wrong all-reduce result: " + what);
  }

  void record_parameters() {
    auto& a = out_.attributes;
    a["nccl.version"] = nccl_version_string();
    for (const auto& [k, v] : nccl_environment()) a["nccl.env." + k] = v;
    a["nccl.ranks"] = std::to_string(s_.nranks);
    a["nccl.threading"] =
        "one host thread per process, grouped calls over non-blocking communicators; captured graphs "
        "launched from one thread per GPU";
    std::string sizes, types, placements;
    for (auto b : p_.sizes) sizes += (sizes.empty() ? "" : ",") + size_label(b);
    for (auto t : p_.types) types += (types.empty() ? "" : ",") + std::string(reduce_type_name(t));
    for (bool ip : p_.in_place)
      placements += (placements.empty() ? "" : ",") + std::string(ip ? "in_place" : "out_of_place");
    a["nccl.sizes"] = sizes;
    a["nccl.dtypes"] = types;
    a["nccl.placements"] = placements;
    a["nccl.check_iters"] = std::to_string(p_.check_iters);
    a["nccl.timeout_s"] = fmt::format("{:g}", p_.timeout_s);
    a["nccl.seed"] = std::to_string(p_.common.seed);
  }

  const AllreduceParams& p_;
  const AllreduceBenchSetup& s_;
  RankSync& sync_;
  AllreduceBenchOutcome out_;
  std::unique_ptr<NcclAllreduceRunner> runner_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

AllreduceBenchOutcome run_allreduce_bench(const AllreduceParams& params, const AllreduceBenchSetup& setup) {
  if (!setup.sync) throw std::invalid_argument("run_allreduce_bench: no RankSync");
  return Bench(params, setup).run();
}

std::map<std::string, std::string> nccl_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (entry.rfind("NCCL_", 0) == 0 && eq != std::string::npos)
      env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

std::string aborted_reason(const AllreduceBenchOutcome& outcome) {
  if (!outcome.aborted) return "";
  return outcome.aborted_at + ": " +
         (outcome.local_error.empty() ? "stopped because another rank failed" : outcome.local_error);
}

}  // namespace gpuqual
