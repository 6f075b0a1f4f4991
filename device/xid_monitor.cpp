#include "device/xid_monitor.hpp"
#include "core/base/utc_time.hpp"

namespace gpuqual {

namespace {
// How long one wait on the event set blocks: the bound on how late stop() returns.
constexpr unsigned kWaitMs = 200;
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
  while (!stop_.load()) {
    nvmlEventData_t data{};
    nvmlReturn_t rc = api.nvmlEventSetWait_v2(set_, &data, kWaitMs);
    if (rc == NVML_ERROR_TIMEOUT) continue;
    if (rc != NVML_SUCCESS) {
      // GPU_IS_LOST and friends: note once, keep waiting for the other GPUs.
      std::lock_guard<std::mutex> lock(mu_);
      if (reason_.find("nvmlEventSetWait") == std::string::npos) {
        reason_ +=
            (reason_.empty() ? "" : "; ") + std::string("nvmlEventSetWait_v2: ") + nvml_.error_text(rc);
      }
      if (rc == NVML_ERROR_UNINITIALIZED) return;
      continue;
    }
    if (!(data.eventType & nvmlEventTypeXidCriticalError)) continue;
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
}

std::vector<XidEvent> XidMonitor::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
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
