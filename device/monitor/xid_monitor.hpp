#pragma once
// XidMonitor: captures Xid events (nvmlEventTypeXidCriticalError) on a background thread for
// as long as it runs. The runner's parent starts one around the whole run (Xids from any check,
// even one that crashed its child process, are seen), and the health check runs one over its
// own window. The thread waits on an NVML event set with a short timeout, so stop() returns
// promptly. Nothing throws for a missing NVML or unsupported events: available() is false and
// reason() says why. A wait that fails is a gap in the watch: wait_failure() says so (the watch
// then never passes), and the thread backs off before the next wait (xid_wait_backoff.hpp)
// rather than spin.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/record/record.hpp"
#include "core/rules/health_snapshot.hpp"
#include "device/nvml/nvml_library.hpp"
#include "device/nvml/nvml_snapshot.hpp"

namespace gpuqual {

// One GPU's answer to Xid event registration.
enum class XidRegistration { registered, unsupported, failed };
// True when no GPU registered and every one answered "not supported" (NVML_ERROR_NOT_SUPPORTED,
// or Xid events missing from its supported event types): what VMs and sandboxed runtimes answer,
// a fact of the environment rather than a fault. False for no GPU at all.
bool xid_events_unsupported(const std::vector<XidRegistration>& answers);

class XidMonitor {
 public:
  // `record_gpus` maps NVML devices to run-record GPU indices (by UUID).
  explicit XidMonitor(const std::vector<GpuInfo>& record_gpus,
                      const std::string& nvml_library = kNvmlLibrary);
  ~XidMonitor();  // stops the thread; never throws
  XidMonitor(const XidMonitor&) = delete;
  XidMonitor& operator=(const XidMonitor&) = delete;

  // Registers for Xid events on every GPU that supports them and starts the thread. Returns
  // false (with reason()) when no GPU could be registered.
  bool start();
  // Stops the thread and returns every event seen since start().
  std::vector<XidEvent> stop();
  // Events seen so far (the thread keeps running).
  std::vector<XidEvent> events() const;

  // Marks which gpuqual check runs now ("" for none): events carry it as during_check, so an
  // application-side Xid during gpuqual's own known-good kernels is escalated.
  void set_running_check(const std::string& check);

  bool available() const { return available_; }
  // start() failed because the environment does not support Xid events (xid_events_unsupported).
  bool events_unsupported() const { return xid_events_unsupported(answers_); }
  std::string reason() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reason_;
  }
  // GPUs (run-record indices) whose Xid events are watched.
  const std::vector<int>& watched_gpus() const { return watched_; }

  // Why waits on the event set failed, with how many did: "nvmlEventSetWait_v2:
  // NVML_ERROR_GPU_IS_LOST: GPU is lost (3 failed waits; GPU 1 lost)"; "" when none failed.
  std::string wait_failure() const;
  // Watched GPUs (run-record indices) that answered NVML_ERROR_GPU_IS_LOST once a wait did.
  std::vector<int> lost_gpus() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lost_gpus_;
  }

 private:
  void loop();
  void note_wait_failure(nvmlReturn_t rc);
  void record_event(const nvmlEventData_t& data);
  void drain();
  void pause(unsigned ms);

  NvmlSession nvml_;
  NvmlHealthReader reader_;
  nvmlEventSet_t set_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::condition_variable wake_;  // ends a backoff pause at stop()
  std::string wait_error_;        // the first failed wait's answer
  std::uint64_t failed_waits_ = 0;
  std::vector<int> lost_gpus_;  // watched GPUs that answer GPU_IS_LOST after a wait said so
  bool probed_lost_ = false;
  std::vector<XidEvent> events_;
  std::string running_check_;
  std::vector<int> watched_;
  std::vector<XidRegistration> answers_;  // per GPU, from start()
  bool available_ = false;
  std::string reason_;
};

}  // namespace gpuqual
