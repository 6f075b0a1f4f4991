#include "device/nccl/nccl_local_comms.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "device/cuda/cuda_error.hpp"
#include "device/nccl/nccl_error.hpp"
#include "device/nccl/nccl_wait.hpp"

namespace gpuqual {

NcclLocalComms::NcclLocalComms(const std::vector<int>& gpus, const std::vector<int>& ranks, int nranks,
                               const ncclUniqueId& id, double timeout_s) {
  if (gpus.empty() || gpus.size() != ranks.size())
    throw std::invalid_argument("NcclLocalComms: one rank per GPU");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  std::vector<ncclComm_t> raw(gpus.size(), nullptr);
  int previous = 0;
  CUDA_CHECK(cudaGetDevice(&previous));
  // One group for all local ranks: a single thread may init several ranks of one clique only
  // inside a group (each init waits for the others otherwise). A failure inside the group still
  // closes the group, so the thread is not left in group mode.
  NCCL_CHECK(ncclGroupStart());
  std::exception_ptr failure;
  for (std::size_t k = 0; k < gpus.size() && !failure; ++k) {
    try {
      CUDA_CHECK(cudaSetDevice(gpus[k]));
      NCCL_CHECK(ncclCommInitRankConfig(&raw[k], nranks, id, ranks[k], &config));
    } catch (...) {
      failure = std::current_exception();
    }
  }
  const ncclResult_t ended = ncclGroupEnd();
  (void)cudaSetDevice(previous);
  comms_.reserve(raw.size());
  for (ncclComm_t c : raw) {
    if (!c) continue;
    comms_.emplace_back(c);
    handles_.push_back(c);
  }
  try {
    if (failure) std::rethrow_exception(failure);
    NCCL_CHECK(ended);
    wait_comms_settled(
        handles_, timeout_s,
        fmt::format("NCCL communicator init ({} of {} ranks in this process)", gpus.size(), nranks));
  } catch (...) {
    mark_failed();
    throw;
  }
}

void NcclLocalComms::mark_failed() {
  for (auto& c : comms_) c.mark_failed();
}

void NcclLocalComms::finalize(double timeout_s) {
  try {
    for (ncclComm_t c : handles_) NCCL_CHECK(ncclCommFinalize(c));
    wait_comms_settled(handles_, timeout_s, "NCCL communicator finalize");
  } catch (...) {
    mark_failed();
    throw;
  }
}

std::string nccl_version_string() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess || code <= 0) return "";
  // Since NCCL 2.9 the code is major*10000 + minor*100 + patch.
  return fmt::format("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100);
}

}  // namespace gpuqual
