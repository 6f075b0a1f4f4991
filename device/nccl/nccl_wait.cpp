#include "device/nccl/nccl_wait.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "device/cuda/cuda_error.hpp"
#include "device/nccl/nccl_error.hpp"

namespace gpuqual {

NcclTimeout::NcclTimeout(double seconds, const std::string& what)
    : std::runtime_error(fmt::format("timed out after {:g} s waiting for {}", seconds, what)),
      seconds_(seconds) {}

void poll_until(const std::function<bool()>& done, double timeout_s, const std::string& what) {
  using clock = std::chrono::steady_clock;
  const auto deadline =
      clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(timeout_s));
  // Spin briefly (short all-reduces finish in microseconds), then sleep between polls so a
  // long wait does not burn a CPU core the other ranks' proxy threads need.
  for (int polls = 0;; ++polls) {
    if (done()) return;
    if (clock::now() >= deadline) throw NcclTimeout(timeout_s, what);
    if (polls < 1000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

namespace {

// Throws NcclError when a communicator reports an asynchronous error; true when none is still
// ncclInProgress (a non-blocking init or enqueue finished).
bool comms_settled(std::span<const ncclComm_t> comms) {
  bool settled = true;
  for (ncclComm_t c : comms) {
    ncclResult_t state = ncclSuccess;
    NCCL_CHECK(ncclCommGetAsyncError(c, &state));
    if (state == ncclInProgress) {
      settled = false;
    } else {
      NCCL_CHECK(state);
    }
  }
  return settled;
}

}  // namespace

void wait_comms_settled(std::span<const ncclComm_t> comms, double timeout_s, const std::string& what) {
  poll_until([&] { return comms_settled(comms); }, timeout_s, what);
}

void wait_event(cudaEvent_t event, std::span<const ncclComm_t> comms, double timeout_s,
                const std::string& what) {
  poll_until(
      [&] {
        const cudaError_t st = cudaEventQuery(event);
        if (st == cudaSuccess) return true;
        if (st != cudaErrorNotReady) CUDA_CHECK(st);
        (void)comms_settled(comms);  // throws on a peer's failure; in progress is fine here
        return false;
      },
      timeout_s, what);
}

}  // namespace gpuqual
