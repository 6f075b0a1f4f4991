#include "device/nccl_allreduce/nccl_allreduce_runner.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "device/cuda/device_guard.hpp"
#include "device/measure/measure_timers.hpp"
#include "device/nccl/nccl_error.hpp"
#include "device/nccl/nccl_wait.hpp"
#include "device/nccl/parallel_launch.hpp"
#include "kernels/nccl_pattern_kernels.cuh"

namespace gpuqual {

namespace {

ncclDataType_t nccl_type(ReduceType t) { return t == ReduceType::f32 ? ncclFloat32 : ncclBfloat16; }

}  // namespace

NcclAllreduceRunner::NcclAllreduceRunner(std::vector<int> gpus, std::vector<int> ranks, int nranks,
                                         std::uint64_t max_bytes)
    : gpus_(std::move(gpus)), ranks_(std::move(ranks)), nranks_(nranks), max_bytes_(max_bytes) {
  if (gpus_.empty() || gpus_.size() != ranks_.size())
    throw std::invalid_argument("all-reduce runner: one rank per GPU");
  DeviceGuard restore(gpus_[0]);
  locals_.reserve(gpus_.size());
  for (int g : gpus_) {
    // Streams and events belong to the device current when they are made.
    CUDA_CHECK(cudaSetDevice(g));
    Local& l = locals_.emplace_back();
    l.gpu = g;
    l.send = DeviceBuffer(max_bytes_);
    l.recv = DeviceBuffer(max_bytes_);
    l.counters = DeviceBuffer(2 * sizeof(unsigned long long));
  }
}

void NcclAllreduceRunner::connect(const ncclUniqueId& id, double timeout_s) {
  comms_ = NcclLocalComms(gpus_, ranks_, nranks_, id, timeout_s);
}

void NcclAllreduceRunner::wait_all(double timeout_s, const std::string& what) {
  for (auto& l : locals_) {
    DeviceGuard g(l.gpu);
    l.stop.record(l.stream);
  }
  for (auto& l : locals_) wait_event(l.stop.get(), comms_.handles(), timeout_s, what);
}

void NcclAllreduceRunner::prepare(const AllreduceItem& item, std::uint64_t seed, double timeout_s) {
  if (item.bytes > max_bytes_) throw std::invalid_argument("all-reduce item larger than the buffers");
  const auto pattern = kernels::make_allreduce_pattern(seed, nranks_, item.type);
  for (std::size_t k = 0; k < locals_.size(); ++k) {
    DeviceGuard g(locals_[k].gpu);
    CUDA_CHECK(kernels::launch_allreduce_fill(locals_[k].send.get(), item.type, item.count(), pattern,
                                              ranks_[k], locals_[k].stream));
  }
  wait_all(timeout_s, "the all-reduce buffers to be filled");
}

void NcclAllreduceRunner::enqueue_allreduce(const AllreduceItem& item, double timeout_s) {
  NCCL_CHECK(ncclGroupStart());
  std::exception_ptr failure;
  for (std::size_t k = 0; k < locals_.size() && !failure; ++k) {
    Local& l = locals_[k];
    void* dst = item.in_place ? l.send.get() : l.recv.get();
    try {
      NCCL_CHECK(ncclAllReduce(l.send.get(), dst, item.count(), nccl_type(item.type), ncclSum,
                               comms_.handles()[k], l.stream));
    } catch (...) {
      failure = std::current_exception();
    }
  }
  const ncclResult_t ended = ncclGroupEnd();  // always closes the group, even after a failure
  if (failure) std::rethrow_exception(failure);
  NCCL_CHECK(ended);
  // Non-blocking communicators may still be enqueueing: no further NCCL call until they are done.
  if (ended == ncclInProgress) {
    wait_comms_settled(comms_.handles(), timeout_s,
                       "NCCL to enqueue the all-reduce " + allreduce_item_label(item));
  }
}

void NcclAllreduceRunner::CapturedReps::reset() {
  for (cudaGraphExec_t e : execs) (void)cudaGraphExecDestroy(e);
  execs.clear();
  key.clear();
  reps = 0;
}

template <class RunOne>
double NcclAllreduceRunner::timed(const AllreduceItem& item, int reps, int runs, double timeout_s,
                                  RunOne&& run_one) {
  Local& first = locals_[0];
  // One untimed run first (enqueue_timed_batch): the start event then waits behind work on a
  // busy stream instead of completing at once on an idle one, which would time the first
  // launch's latency and any host gap before the rest is enqueued.
  const auto record_start = [&] {
    {
      DeviceGuard g(first.gpu);
      first.start.record(first.stream);
      first.fork.record(first.stream);
    }
    for (std::size_t k = 1; k < locals_.size(); ++k)
      CUDA_CHECK(cudaStreamWaitEvent(locals_[k].stream, first.fork.get(), 0));
  };
  const auto record_stop = [&] {
    for (std::size_t k = 1; k < locals_.size(); ++k) {
      DeviceGuard g(locals_[k].gpu);
      locals_[k].join.record(locals_[k].stream);
      CUDA_CHECK(cudaStreamWaitEvent(first.stream, locals_[k].join.get(), 0));
    }
    DeviceGuard g(first.gpu);
    first.stop.record(first.stream);
  };
  enqueue_timed_batch(runs, run_one, record_start, record_stop);
  wait_event(first.stop.get(), comms_.handles(), timeout_s,
             fmt::format("the all-reduce {} ({} runs)", allreduce_item_label(item), reps));
  return Event::elapsed_ms(first.start, first.stop) / 1e3;
}

void NcclAllreduceRunner::launch_graphs() {
  // One thread per GPU (device/nccl/parallel_launch.hpp): NCCL's documentation warns that
  // cudaGraphLaunch of one GPU's captured collective may block until the other GPUs' graphs are
  // launched, so launching them in turn from one thread can deadlock.
  const auto results = launch_on_own_threads(locals_.size(), [this](std::size_t k) {
    const cudaError_t set = cudaSetDevice(locals_[k].gpu);
    if (set != cudaSuccess) return static_cast<int>(set);
    return static_cast<int>(cudaGraphLaunch(captured_.execs[k], locals_[k].stream));
  });
  // Each launching thread set its own current device; this thread's is untouched.
  for (int rc : results) {
    if (rc == -1) throw std::runtime_error("launching the captured all-reduce graph threw");
    CUDA_CHECK(static_cast<cudaError_t>(rc));
  }
}

bool NcclAllreduceRunner::capture(const AllreduceItem& item, int reps, double timeout_s) {
  const std::string key = allreduce_metric_prefix(item);
  if (captured_.key == key && captured_.reps == reps) return true;
  captured_.reset();
  std::vector<bool> capturing(locals_.size(), false);
  try {
    for (std::size_t k = 0; k < locals_.size(); ++k) {
      DeviceGuard g(locals_[k].gpu);
      // Thread-local: NCCL's own host thread (non-blocking communicators) may still call
      // CUDA while this thread captures.
      CUDA_CHECK(cudaStreamBeginCapture(locals_[k].stream, cudaStreamCaptureModeThreadLocal));
      capturing[k] = true;
    }
    for (int r = 0; r < reps; ++r) enqueue_allreduce(item, timeout_s);
    for (std::size_t k = 0; k < locals_.size(); ++k) {
      DeviceGuard g(locals_[k].gpu);
      cudaGraph_t graph = nullptr;
      const cudaError_t ended = cudaStreamEndCapture(locals_[k].stream, &graph);
      capturing[k] = false;
      CUDA_CHECK(ended);
      cudaGraphExec_t exec = nullptr;
      const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
      (void)cudaGraphDestroy(graph);
      CUDA_CHECK(made);
      captured_.execs.push_back(exec);
    }
  } catch (const std::exception& e) {
    for (std::size_t k = 0; k < locals_.size(); ++k) {
      if (!capturing[k]) continue;
      DeviceGuard g(locals_[k].gpu);
      cudaGraph_t graph = nullptr;
      if (cudaStreamEndCapture(locals_[k].stream, &graph) == cudaSuccess && graph)
        (void)cudaGraphDestroy(graph);
    }
    (void)cudaGetLastError();  // the capture's error is reported as the fallback's reason
    captured_.reset();
    graph_failed_ = true;
    graph_problem_ = e.what();
    return false;
  }
  captured_.key = key;
  captured_.reps = reps;
  return true;
}

double NcclAllreduceRunner::time_reps(const AllreduceItem& item, int reps, double timeout_s) {
  if (allreduce_timing(item.bytes, graph_failed_) == AllreduceTiming::graph &&
      capture(item, reps, timeout_s)) {
    // The graph holds the sample's `reps` all-reduces: one launch a run (and one untimed).
    return timed(item, reps, allreduce_runs_per_batch(AllreduceTiming::graph, reps), timeout_s,
                 [&] { launch_graphs(); });
  }
  return timed(item, reps, allreduce_runs_per_batch(AllreduceTiming::eager, reps), timeout_s,
               [&] { enqueue_allreduce(item, timeout_s); });
}

std::string NcclAllreduceRunner::timing_note(const AllreduceItem& item) const {
  const AllreduceTiming t = allreduce_timing(item.bytes, graph_failed_);
  if (t == AllreduceTiming::eager && allreduce_timing(item.bytes, false) == AllreduceTiming::graph) {
    return "eager (CUDA graph capture failed: " + graph_problem_ + ")";
  }
  return t == AllreduceTiming::graph
             ? "graph (one CUDA graph of the sample's all-reduces per GPU, each launched from its own thread)"
             : "eager";
}

void NcclAllreduceRunner::check_once(
    const AllreduceItem& item, std::uint64_t seed, double timeout_s, std::vector<AllreduceCheckCount>& counts,
    const std::function<void(std::size_t, void*, const AllreduceItem&)>& corrupt) {
  counts.resize(locals_.size());
  const auto pattern = kernels::make_allreduce_pattern(seed, nranks_, item.type);
  for (std::size_t k = 0; k < locals_.size(); ++k) {
    Local& l = locals_[k];
    DeviceGuard g(l.gpu);
    CUDA_CHECK(
        kernels::launch_allreduce_fill(l.send.get(), item.type, item.count(), pattern, ranks_[k], l.stream));
    // All ones is NaN in float and bf16: an element the all-reduce never writes cannot pass.
    if (!item.in_place) CUDA_CHECK(cudaMemsetAsync(l.recv.get(), 0xff, item.bytes, l.stream));
  }
  enqueue_allreduce(item, timeout_s);
  if (corrupt) {
    wait_all(timeout_s, "the all-reduce " + allreduce_item_label(item));
    for (std::size_t k = 0; k < locals_.size(); ++k) {
      DeviceGuard g(locals_[k].gpu);
      corrupt(k, item.in_place ? locals_[k].send.get() : locals_[k].recv.get(), item);
      // The corruptor may write with the legacy default stream, which nothing orders against this
      // GPU's non-blocking stream: wait for the device, so the verify kernel sees the corruption.
      CUDA_CHECK(cudaDeviceSynchronize());
    }
  }
  for (auto& l : locals_) {
    DeviceGuard g(l.gpu);
    auto* c = l.counters.as<unsigned long long>();
    CUDA_CHECK(cudaMemsetAsync(c, 0, sizeof *c, l.stream));
    CUDA_CHECK(cudaMemsetAsync(c + 1, 0xff, sizeof *c, l.stream));  // UINT64_MAX: no wrong element yet
    CUDA_CHECK(kernels::launch_allreduce_verify(item.in_place ? l.send.get() : l.recv.get(), item.type,
                                                item.count(), pattern, c, l.stream));
  }
  wait_all(timeout_s, "the verified all-reduce " + allreduce_item_label(item));
  // Every stream is idle now, so these copies cannot block on a hung collective.
  for (std::size_t k = 0; k < locals_.size(); ++k) {
    DeviceGuard g(locals_[k].gpu);
    unsigned long long got[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(got, locals_[k].counters.get(), sizeof got, cudaMemcpyDeviceToHost));
    if (got[0] > 0) {
      counts[k].wrong += got[0];
      counts[k].iterations_wrong += 1;
      if (got[1] < counts[k].first_wrong) counts[k].first_wrong = got[1];
    }
  }
}

}  // namespace gpuqual
