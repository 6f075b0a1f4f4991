#pragma once
// NcclComm: move-only owner of an NCCL communicator.
//
// The destructor never throws and never hangs on a broken communicator: ncclCommDestroy waits
// for outstanding work and can block forever when a peer died or the communicator hit an
// asynchronous error, so the destructor checks ncclCommGetAsyncError first and aborts
// (ncclCommAbort) in that case, or when mark_failed() was called after an error or timeout.
#include <nccl.h>

#include <utility>

#include "device/nccl/nccl_error.hpp"

namespace gpuqual {

class NcclComm {
 public:
  NcclComm() = default;
  // Takes ownership of a communicator made by ncclCommInitRank / ncclCommInitAll / ...
  explicit NcclComm(ncclComm_t comm) : comm_(comm) {}

  // One rank of `nranks`; the current CUDA device is the rank's device.
  static NcclComm init_rank(int nranks, const ncclUniqueId& id, int rank) {
    ncclComm_t comm = nullptr;
    NCCL_CHECK(ncclCommInitRank(&comm, nranks, id, rank));
    return NcclComm(comm);
  }

  ~NcclComm() { reset(); }
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  NcclComm(NcclComm&& other) noexcept
      : comm_(std::exchange(other.comm_, nullptr)), failed_(std::exchange(other.failed_, false)) {}
  NcclComm& operator=(NcclComm&& other) noexcept {
    if (this != &other) {
      reset();
      comm_ = std::exchange(other.comm_, nullptr);
      failed_ = std::exchange(other.failed_, false);
    }
    return *this;
  }

  ncclComm_t get() const { return comm_; }
  explicit operator bool() const { return comm_ != nullptr; }
  // After an error or a timeout: the destructor aborts instead of destroying.
  void mark_failed() { failed_ = true; }

  // Throws NcclError when the communicator reports an asynchronous error (a peer failed).
  void check_async() const {
    ncclResult_t async = ncclSuccess;
    NCCL_CHECK(ncclCommGetAsyncError(comm_, &async));
    NCCL_CHECK(async);
  }

  void reset() noexcept {
    if (!comm_) return;
    ncclResult_t async = ncclSuccess;
    const bool broken = failed_ || ncclCommGetAsyncError(comm_, &async) != ncclSuccess ||
                        (async != ncclSuccess && async != ncclInProgress);
    // A failed destroy leaves the communicator in an unknown state: it is not retried.
    if (broken) {
      (void)ncclCommAbort(comm_);
    } else {
      (void)ncclCommDestroy(comm_);
    }
    comm_ = nullptr;
    failed_ = false;
  }

 private:
  ncclComm_t comm_ = nullptr;
  bool failed_ = false;
};

}  // namespace gpuqual
