#include "device/monitor/run_monitor.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "core/base/atomic_file.hpp"
#include "core/base/utc_time.hpp"
#include "core/rules/fabric_rules.hpp"
#include "core/rules/health_core_fields.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_snapshot_json.hpp"
#include "device/host/fabric_sysfs.hpp"
#include "device/nvml/nvml_snapshot.hpp"

namespace gpuqual {

namespace {
// The HCA error counters at the start of the run, for the `fabric` check (suites/fabric.cpp):
// only on a node that has HCAs, so a GPU-only node gets no side file.
void write_fabric_start_snapshot(const std::string& side_dir) {
  std::vector<std::string> counters;
  for (const auto& c : fabric_error_counters()) counters.emplace_back(c.name);
  const auto snapshot = read_fabric_snapshot("/", counters);
  if (!snapshot || snapshot->hcas.empty()) return;
  write_file_atomic(side_dir + "/" + kFabricBeforeFile, to_json(*snapshot).dump(1) + "\n");
}

// gpu.lost (the table's severity: fail) on `gpus`, or on the node when none is named.
void add_lost(const SeverityTable& table, const std::string& detail, const std::vector<int>& gpus,
              CheckResult& r) {
  const SeverityRule& rule = table.finding("gpu.lost");
  std::vector<std::optional<int>> where(gpus.begin(), gpus.end());
  if (where.empty()) where.push_back(std::nullopt);
  for (const auto& g : where)
    r.findings.push_back(Finding{"gpu.lost", rule.severity, g, detail, rule.action, {}});
  r.status = worse_of(r.status, status_of_findings(r.findings));
}

// A watch whose waits failed had a gap: it never passes. A wait NVML answered GPU_IS_LOST is a
// lost GPU, on the watched GPUs that then answered so, else on the node; any other failure makes
// the watch `error` with NVML's answer, unless the events it did see already fail it.
void judge_wait_failure(const std::string& failure, const std::vector<int>& lost_gpus,
                        const SeverityTable& table, CheckResult& r) {
  if (failure.empty()) return;
  r.attributes["wait_failure"] = failure;
  if (nvml_answer_lost(failure)) add_lost(table, "the Xid watch's wait: " + failure, lost_gpus, r);
  r.status = worse_of(r.status, Status::error);
  r.reason = fmt::format("the Xid watch had a gap: {}; {}", failure, r.reason);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

RunHealthMonitor::RunHealthMonitor(const std::vector<GpuInfo>& gpus, const std::string& nvml_library)
    : gpus_(gpus), nvml_library_(nvml_library) {}

void RunHealthMonitor::start(const std::string& side_dir) {
  started_at_ = utc_now_rfc3339();
  started_s_ = now_s();
  xids_ = std::make_unique<XidMonitor>(gpus_, nvml_library_);
  capturing_ = xids_->start();
  if (side_dir.empty()) return;
  write_fabric_start_snapshot(side_dir);
  NvmlSession nvml = NvmlSession::open(nvml_library_);
  if (!nvml.ok()) return;  // no start snapshot: `health` then measures growth over its own window
  NvmlHealthReader reader(nvml, gpus_);
  write_file_atomic(side_dir + "/" + kNvmlBeforeFile, to_json(reader.read()).dump(1) + "\n");
}

void RunHealthMonitor::set_running_check(const std::string& check) {
  if (xids_) xids_->set_running_check(check);
}

CheckResult RunHealthMonitor::stop(const SeverityTable& table) {
  CheckResult r;
  r.name = kXidCheckName;
  r.started_at = started_at_;
  r.duration_s = started_s_ > 0 ? now_s() - started_s_ : 0;
  if (!xids_) {
    r.status = Status::skip;
    r.reason = "Xid capture was never started";
    return r;
  }
  const std::vector<XidEvent> events = xids_->stop();
  const std::string why = xids_->reason();
  if (!capturing_) {
    r.status = Status::skip;
    r.reason = "Xid capture unavailable: " + why;
    // With no NVIDIA GPU in the inventory there is nothing to watch (not applicable); with GPUs,
    // a watch that could not start never passes. A node that should have GPUs fails on its
    // expected count (gpu.missing) instead.
    if (gpus_.empty()) r.reason_code = "no_gpu";
    // A GPU lost when the watch registered is a failure of the node, not an unavailable watch.
    if (nvml_answer_lost(why)) add_lost(table, "Xid event registration: " + why, {}, r);
    return r;
  }
  r.findings = xid_findings(events, table);
  r.status = status_of_findings(r.findings);
  r.attributes["events"] = std::to_string(events.size());
  if (!why.empty()) r.attributes["capture_notes"] = why;
  r.reason = events.empty()
                 ? fmt::format("no Xid on {} GPU(s) during the run", xids_->watched_gpus().size())
                 : fmt::format("{} Xid event(s), {} distinct (code, GPU)", events.size(), r.findings.size());
  if (nvml_answer_lost(why)) add_lost(table, "Xid event registration: " + why, {}, r);
  judge_wait_failure(xids_->wait_failure(), xids_->lost_gpus(), table, r);
  return r;
}

}  // namespace gpuqual
