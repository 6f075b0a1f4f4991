#include "core/verdict/lost_gpus.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

#include "core/rules/health_core_fields.hpp"

namespace gpuqual {

namespace {

// The action of baselines/health-findings.yaml's gpu.lost: the health check and the Xid watch
// report the same fact with the same advice.
constexpr const char* kLostAction =
    "drain the node; reset the GPU (nvidia-smi -r) or reboot; if it is lost again, check seating, power and "
    "riser, then RMA";

FindingRow row(const char* check, const std::string& code, std::optional<int> gpu, std::string detail,
               bool lost) {
  FindingRow r;
  r.check = check;
  r.finding.code = code;
  r.finding.severity = lost ? Severity::fail : Severity::info;
  r.finding.gpu = gpu;
  r.finding.detail = std::move(detail);
  r.finding.action =
      lost ? kLostAction : "read the GPU with nvidia-smi -q; a GPU NVML cannot name is not judged";
  r.status = lost ? Status::fail : Status::error;
  r.reason = r.finding.detail;
  return r;
}

}  // namespace

bool gpu_lost(const GpuInfo& g) {
  return std::any_of(g.nvml_unread.begin(), g.nvml_unread.end(),
                     [](const std::string& u) { return nvml_answer_lost(u); });
}

int present_gpu_count(const RunRecord& r) {
  return static_cast<int>(
      std::count_if(r.gpus.begin(), r.gpus.end(), [](const GpuInfo& g) { return !gpu_lost(g); }));
}

std::vector<FindingRow> nvml_unread_rows(const RunRecord& r, const char* check) {
  std::vector<FindingRow> rows;
  for (const GpuInfo& g : r.gpus) {
    if (g.nvml_unread.empty()) continue;
    const bool lost = gpu_lost(g);
    rows.push_back(
        row(check, lost ? "gpu.lost" : "gpu.nvml_unread", g.index,
            fmt::format("GPU {} ({}): NVML {}: {}", g.index, g.uuid,
                        lost ? "reports the GPU lost" : "did not give", fmt::join(g.nvml_unread, "; ")),
            lost));
  }
  for (const std::string& d : r.node.nvml_devices_unread) {
    const bool lost = nvml_answer_lost(d);
    rows.push_back(row(check, lost ? "gpu.lost" : "gpu.nvml_unread", std::nullopt,
                       fmt::format("a device NVML lists is not tied to a GPU of the record: {}", d), lost));
  }
  return rows;
}

}  // namespace gpuqual
