#pragma once
// Waiting on NCCL without ever stalling: every wait polls with a deadline instead of blocking
// (cudaStreamSynchronize and a blocking communicator both wait forever on a peer that never
// comes). On the way it asks each communicator for an asynchronous error, so a failed peer ends
// the wait at once with that error instead of at the deadline. The caller aborts the
// communicators (ncclCommAbort, NcclComm::mark_failed) when a wait throws.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <functional>
#include <span>
#include <stdexcept>
#include <string>

namespace gpuqual {

// "timed out after 60 s waiting for <what>": the text a hang leaves in the record.
class NcclTimeout : public std::runtime_error {
 public:
  NcclTimeout(double seconds, const std::string& what);
  double seconds() const { return seconds_; }

 private:
  double seconds_;
};

// Calls `done` until it returns true; throws NcclTimeout once `timeout_s` have passed. `done`
// may throw (an asynchronous NCCL error), which ends the wait with that error.
void poll_until(const std::function<bool()>& done, double timeout_s, const std::string& what);

// Waits until every communicator finished its non-blocking init or enqueue.
void wait_comms_settled(std::span<const ncclComm_t> comms, double timeout_s, const std::string& what);

// Waits until `event` completed on the GPU, watching `comms` for asynchronous errors.
void wait_event(cudaEvent_t event, std::span<const ncclComm_t> comms, double timeout_s,
                const std::string& what);

}  // namespace gpuqual
