#pragma once
// The all-reduce work of one process: its GPUs (all GPUs of the node in the one-node check,
// one GPU per rank under mpirun), each with a stream, send and receive buffers sized for the
// largest message, and its communicator.
//
// Threading: one host thread drives every local GPU with group calls (ncclGroupStart/End
// around one ncclAllReduce per GPU), as nccl-tests does with -g N. One thread per GPU would
// need a barrier between the threads before every collective and would still have to group
// nothing; with one thread the order of collectives is the same on every GPU by construction,
// the NCCL launch cost is microseconds next to the transfer, and a timeout aborts all of the
// process's communicators from the one place that waits.
//
// Timing: GPU events on the first GPU's stream, forked to every other local stream before the
// collectives and joined after them, so one sample spans the work of all local GPUs; the start
// event waits behind one untimed run (an all-reduce, or a launch of the graph), never on an
// idle stream. Small messages (allreduce_timing in nccl_allreduce_plan.hpp) are captured once
// per (item, reps) as one CUDA graph per local stream, and the graphs are launched between the
// events: the non-blocking communicators' host-side enqueue is then outside the timed interval.
// Each GPU's graph is launched from its own thread (device/nccl/parallel_launch.hpp): NCCL's
// documentation warns that launching them in turn from one thread can deadlock.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/cuda/device_buffer.hpp"
#include "device/cuda/event.hpp"
#include "device/cuda/stream.hpp"
#include "device/nccl/nccl_local_comms.hpp"
#include "device/nccl_allreduce/nccl_allreduce_plan.hpp"

namespace gpuqual {

// What one GPU's verification found over its check iterations.
struct AllreduceCheckCount {
  std::uint64_t wrong = 0;                 // wrong elements, summed over iterations
  std::uint64_t first_wrong = UINT64_MAX;  // lowest wrong element index seen
  int iterations_wrong = 0;                // iterations with at least one wrong element
};

class NcclAllreduceRunner {
 public:
  // Allocates on each GPU (throws CudaError, e.g. out of memory). `ranks[k]` is gpus[k]'s rank.
  NcclAllreduceRunner(std::vector<int> gpus, std::vector<int> ranks, int nranks, std::uint64_t max_bytes);

  // Creates the communicators (collective over all ranks of the clique).
  void connect(const ncclUniqueId& id, double timeout_s);
  void finalize(double timeout_s) { comms_.finalize(timeout_s); }
  // After an error or timeout anywhere: the communicators abort when destroyed.
  void mark_failed() { comms_.mark_failed(); }

  // Fills the buffers the item reads with this rank's pattern (timing never runs on zeros).
  void prepare(const AllreduceItem& item, std::uint64_t seed, double timeout_s);
  // `reps` all-reduces back to back; returns their GPU time in seconds.
  double time_reps(const AllreduceItem& item, int reps, double timeout_s);
  // One verified all-reduce: fresh pattern (`seed`), receive buffer poisoned with NaN for
  // out-of-place, then every element checked against the expected sum. Adds to counts[k].
  // `corrupt(k, result, item)` (GPU tests) damages local GPU k's result before the check.
  void check_once(
      const AllreduceItem& item, std::uint64_t seed, double timeout_s,
      std::vector<AllreduceCheckCount>& counts,
      const std::function<void(std::size_t k, void* result, const AllreduceItem& item)>& corrupt = {});

  // How `item` is timed, with the reason when graph capture failed and it fell back to eager.
  std::string timing_note(const AllreduceItem& item) const;

  const std::vector<int>& gpus() const { return gpus_; }
  const std::vector<int>& ranks() const { return ranks_; }
  int nranks() const { return nranks_; }

 private:
  struct Local {
    int gpu = 0;
    Stream stream;
    Event start, stop, fork{cudaEventDisableTiming}, join{cudaEventDisableTiming};
    DeviceBuffer send, recv, counters;
  };
  // Executable graphs of one item's `reps` all-reduces, one per local stream.
  struct CapturedReps {
    std::string key;
    int reps = 0;
    std::vector<cudaGraphExec_t> execs;
    CapturedReps() = default;
    CapturedReps(const CapturedReps&) = delete;
    CapturedReps& operator=(const CapturedReps&) = delete;
    ~CapturedReps() { reset(); }
    void reset();
  };
  void enqueue_allreduce(const AllreduceItem& item, double timeout_s);
  void wait_all(double timeout_s, const std::string& what);
  // Captures `reps` all-reduces of `item` (or keeps the capture made for them); false, with
  // graph_problem_ set, when capturing failed.
  bool capture(const AllreduceItem& item, int reps, double timeout_s);
  // `run_one` once untimed, then `runs` times between the events (it enqueues the work on every
  // local stream); returns the seconds of the timed runs, which are `reps` all-reduces.
  template <class RunOne>
  double timed(const AllreduceItem& item, int reps, int runs, double timeout_s, RunOne&& run_one);
  // Launches every local GPU's captured graph, each from its own thread.
  void launch_graphs();

  std::vector<int> gpus_, ranks_;
  int nranks_ = 0;
  std::uint64_t max_bytes_ = 0;
  std::vector<Local> locals_;
  NcclLocalComms comms_;
  CapturedReps captured_;
  bool graph_failed_ = false;
  std::string graph_problem_;
};

}  // namespace gpuqual
