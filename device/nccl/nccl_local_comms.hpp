#pragma once
// The NCCL communicators of this process's GPUs: one per GPU, made in one group call as
// non-blocking communicators (ncclConfig_t.blocking = 0), so that no NCCL call can block the
// thread forever: init and every collective return at once (or ncclInProgress) and the caller
// waits with a deadline (nccl_wait.hpp). After a timeout or an error, mark_failed() makes the
// owners abort (ncclCommAbort) instead of destroying, which would wait for the hung work.
#include <nccl.h>

#include <string>
#include <vector>

#include "device/nccl/nccl_comm.hpp"

namespace gpuqual {

class NcclLocalComms {
 public:
  NcclLocalComms() = default;
  // gpus[k] (a CUDA device of this process) becomes rank ranks[k] of `nranks` in the clique
  // named by `id`. Waits at most `timeout_s` for every rank of the clique to join; throws
  // NcclTimeout or NcclError/CudaError (and aborts what it made) when that fails.
  NcclLocalComms(const std::vector<int>& gpus, const std::vector<int>& ranks, int nranks,
                 const ncclUniqueId& id, double timeout_s);

  std::size_t size() const { return comms_.size(); }
  const std::vector<ncclComm_t>& handles() const { return handles_; }
  // From now on the destructors abort: use after any timeout or error.
  void mark_failed();
  // The orderly end after the last collective finished: ncclCommFinalize on every communicator,
  // waited for with a deadline (it flushes work with the peers), so the destructors' destroy
  // cannot block. On a timeout or error it marks them failed (abort) and rethrows.
  void finalize(double timeout_s);

 private:
  std::vector<NcclComm> comms_;
  std::vector<ncclComm_t> handles_;
};

// "2.28.9" from ncclGetVersion (the library loaded, not the header compiled against).
std::string nccl_version_string();

}  // namespace gpuqual
