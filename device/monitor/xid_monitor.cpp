#include "device/monitor/xid_monitor.hpp"

#include <fmt/format.h>

#include <chrono>

#include "core/base/utc_time.hpp"
#include "device/monitor/xid_wait_backoff.hpp"

namespace gpuqual {

namespace {
// How long one wait on the event set blocks: the bound on how late stop() returns.
constexpr unsigned kWaitMs = 200;
// Most events stop() takes without waiting: a bound, in case NVML keeps answering.
constexpr int kDrainMax = 1024;
}  // namespace

bool xid_events_unsupported(const std::vector<XidRegistration>& answers) {
  if (answers.empty()) return false;
  for (XidRegistration a : answers) {
    if (a != XidRegistration::unsupported) return false;
  }
  return true;
}

XidMonitor::XidMonitor(const std::vector<GpuInfo>& record_gpus, const std::string& nvml_library)
    : nvml_(NvmlSession::open(nvml_library)), reader_(nvml_, record_gpus) {}

XidMonitor::~XidMonitor() { (void)stop(); }

bool XidMonitor::start() {
  if (thread_.joinable()) return available_;
  if (!nvml_.ok()) {
    reason_ = "NVML unavailable: " + nvml_.reason();
    return false;
  }
  const NvmlApi& api = nvml_.api();
  for (const char* missing :
       {"nvmlEventSetCreate", "nvmlDeviceRegisterEvents", "nvmlEventSetWait_v2", "nvmlEventSetFree"}) {
    for (const auto& m : nvml_.missing_symbols()) {
      if (m == missing) {
        reason_ = "Xid events unavailable: " + nvml_.missing(missing);
        return false;
      }
    }
  }
  nvmlReturn_t rc = api.nvmlEventSetCreate(&set_);
  if (rc != NVML_SUCCESS) {
    reason_ = "nvmlEventSetCreate: " + nvml_.error_text(rc);
    set_ = nullptr;
    if (rc == NVML_ERROR_NOT_SUPPORTED)
      answers_.assign(reader_.devices().size(), XidRegistration::unsupported);
    return false;
  }
  std::string problems;
  for (const auto& d : reader_.devices()) {
    unsigned long long supported = 0;
    if (api.nvmlDeviceGetSupportedEventTypes &&
        api.nvmlDeviceGetSupportedEventTypes(d.handle, &supported) == NVML_SUCCESS &&
        !(supported & nvmlEventTypeXidCriticalError)) {
      problems += "; GPU " + d.uuid + ": Xid events not supported";
      answers_.push_back(XidRegistration::unsupported);
      continue;
    }
    rc = api.nvmlDeviceRegisterEvents(d.handle, nvmlEventTypeXidCriticalError, set_);
    if (rc != NVML_SUCCESS) {
      problems += "; GPU " + d.uuid + ": nvmlDeviceRegisterEvents: " + nvml_.error_text(rc);
      answers_.push_back(rc == NVML_ERROR_NOT_SUPPORTED ? XidRegistration::unsupported
                                                        : XidRegistration::failed);
      continue;
    }
    answers_.push_back(XidRegistration::registered);
    watched_.push_back(reader_.record_index_of(d.handle));
  }
  if (watched_.empty()) {
    reason_ = "no GPU accepts Xid event registration" + problems;
    (void)api.nvmlEventSetFree(set_);
    set_ = nullptr;
    return false;
  }
  reason_ = problems.empty() ? "" : problems.substr(2);
  available_ = true;
  stop_ = false;
  thread_ = std::thread([this] { loop(); });
  return true;
}

void XidMonitor::loop() {
  const NvmlApi& api = nvml_.api();
  XidWaitBackoff backoff;
  while (!stop_.load()) {
    nvmlEventData_t data{};
    nvmlReturn_t rc = api.nvmlEventSetWait_v2(set_, &data, kWaitMs);
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_TIMEOUT) {
      // A lost GPU, an uninitialised library: the watch has a gap from here. NVML answers at
      // once, so the next wait comes after a pause that grows while the waits keep failing.
      note_wait_failure(rc);
      if (rc == NVML_ERROR_UNINITIALIZED) return;
      pause(backoff.after_wait(true));
      continue;
    }
    (void)backoff.after_wait(false);
    if (rc == NVML_SUCCESS) record_event(data);
  }
}

void XidMonitor::record_event(const nvmlEventData_t& data) {
  if (!(data.eventType & nvmlEventTypeXidCriticalError)) return;
  XidEvent e;
  e.code = static_cast<int>(data.eventData);  // 999: an Xid the driver could not name
  const int index = reader_.record_index_of(data.device);
  if (index >= 0) e.gpu = index;
  for (const auto& d : reader_.devices()) {
    if (d.handle == data.device) e.uuid = d.uuid;
  }
  e.time = utc_now_rfc3339();
  std::lock_guard<std::mutex> lock(mu_);
  e.during_check = running_check_;
  events_.push_back(std::move(e));
}

// After the thread: the events that came since its last wait, without waiting (timeout 0). The
// watch ends on an answer, so a stop that came before the thread's first wait still asked once.
void XidMonitor::drain() {
  const NvmlApi& api = nvml_.api();
  for (int i = 0; i < kDrainMax; ++i) {
    nvmlEventData_t data{};
    const nvmlReturn_t rc = api.nvmlEventSetWait_v2(set_, &data, 0);
    if (rc == NVML_ERROR_TIMEOUT) return;
    if (rc != NVML_SUCCESS) {
      note_wait_failure(rc);
      return;
    }
    record_event(data);
  }
}

void XidMonitor::note_wait_failure(nvmlReturn_t rc) {
  bool probe = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_waits_++ == 0) wait_error_ = "nvmlEventSetWait_v2: " + nvml_.error_text(rc);
    probe = rc == NVML_ERROR_GPU_IS_LOST && !probed_lost_;
    if (probe) probed_lost_ = true;
  }
  // The set does not say which GPU is lost: each watched GPU is asked, once.
  if (!probe || !nvml_.api().nvmlDeviceGetUUID) return;
  std::vector<int> lost;
  for (const auto& d : reader_.devices()) {
    char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    if (nvml_.api().nvmlDeviceGetUUID(d.handle, buf, sizeof buf) == NVML_ERROR_GPU_IS_LOST)
      lost.push_back(reader_.record_index_of(d.handle));
  }
  std::lock_guard<std::mutex> lock(mu_);
  lost_gpus_ = std::move(lost);
}

void XidMonitor::pause(unsigned ms) {
  std::unique_lock<std::mutex> lock(mu_);
  wake_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_.load(); });
}

std::string XidMonitor::wait_failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_waits_ == 0) return "";
  std::string lost;
  for (int g : lost_gpus_) lost += (lost.empty() ? "; GPU " : ", GPU ") + std::to_string(g);
  return fmt::format("{} ({} failed wait{}{}{})", wait_error_, failed_waits_, failed_waits_ == 1 ? "" : "s",
                     lost, lost.empty() ? "" : " lost");
}

std::vector<XidEvent> XidMonitor::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    drain();
  }
  if (set_ && nvml_.ok()) {
    (void)nvml_.api().nvmlEventSetFree(set_);
    set_ = nullptr;
  }
  return events();
}

std::vector<XidEvent> XidMonitor::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

void XidMonitor::set_running_check(const std::string& check) {
  std::lock_guard<std::mutex> lock(mu_);
  running_check_ = check;
}

}  // namespace gpuqual
