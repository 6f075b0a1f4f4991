#pragma once
// RunHealthMonitor: what the runner's parent wraps around a whole run (docs/architecture.md: "XID events
// captured for the whole run (NVML event set on a background thread of the parent)").
//
//   RunHealthMonitor monitor(inventory.gpus);
//   monitor.start(side_dir);                 // before the first check
//   monitor.set_running_check("gemm");       // as each check starts ("" between checks)
//   CheckResult xid = monitor.stop(table);   // after the last check: append to record.checks
//
// start() also writes <side_dir>/nvml-before.json, the NVML counters at the start of the run,
// which the `health` check (when it runs later in the suite) uses to report counters that grew
// during the whole run, and, on a node with InfiniBand/RoCE adapters, <side_dir>/fabric-before.json
// (their error counters) for the `fabric` check. Never throws for a missing NVML: stop() then returns a
// `skip` result with the reason.
#include <memory>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/rules/health_severity.hpp"
#include "device/monitor/xid_monitor.hpp"

namespace gpuqual {

inline constexpr const char* kXidCheckName = "xid";
inline constexpr const char* kNvmlBeforeFile = "nvml-before.json";

class RunHealthMonitor {
 public:
  explicit RunHealthMonitor(const std::vector<GpuInfo>& gpus, const std::string& nvml_library = kNvmlLibrary);
  // Starts Xid capture; writes the start snapshot when `side_dir` is not empty (atomic write;
  // a write failure throws std::runtime_error naming the path).
  void start(const std::string& side_dir);
  void set_running_check(const std::string& check);
  // Stops capture and judges the Xids with `table`: a CheckResult named "xid" (pass when none,
  // else the worst Xid's severity; skip with the reason when capture never ran).
  CheckResult stop(const SeverityTable& table);

 private:
  std::vector<GpuInfo> gpus_;
  std::string nvml_library_;
  std::unique_ptr<XidMonitor> xids_;
  bool capturing_ = false;
  std::string started_at_;
  double started_s_ = 0;
};

}  // namespace gpuqual
