#include "probes/telemetry_eval.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace gpuqual::probes {

const std::vector<std::string>& default_dcgm_series() {
  static const std::vector<std::string> series = {
      "DCGM_FI_DEV_GPU_TEMP",
      "DCGM_FI_DEV_POWER_USAGE",
      "DCGM_FI_DEV_SM_CLOCK",
      "DCGM_FI_DEV_MEM_CLOCK",
      "DCGM_FI_DEV_GPU_UTIL",
      "DCGM_FI_DEV_FB_USED",
      "DCGM_FI_DEV_FB_FREE",
      "DCGM_FI_DEV_XID_ERRORS",
      "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
      "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
      "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
      "DCGM_FI_DEV_ROW_REMAP_FAILURE",
  };
  return series;
}

TelemetryJudgement judge_telemetry(const PromDocument& doc, const std::vector<TelemetryGpu>& gpus,
                                   const std::vector<std::string>& expected_series,
                                   const std::vector<std::string>& uuid_labels) {
  // series name → UUIDs that report it
  std::map<std::string, std::set<std::string>> seen;
  std::set<std::string> all_uuids;
  for (const auto& s : doc.samples) {
    for (const auto& key : uuid_labels) {
      if (const std::string* u = s.label(key)) {
        seen[s.name].insert(*u);
        all_uuids.insert(*u);
        break;
      }
    }
  }

  TelemetryJudgement j;
  std::set<std::string> node_uuids;
  std::vector<std::string> missing_gpus, incomplete_gpus;
  for (const auto& g : gpus) {
    node_uuids.insert(g.uuid);
    std::vector<std::string> missing;
    for (const auto& series : expected_series) {
      ++j.expected_pairs;
      auto it = seen.find(series);
      if (it != seen.end() && it->second.count(g.uuid)) {
        ++j.present_pairs;
      } else {
        missing.push_back(series);
      }
    }
    GpuCheckStatus st;
    st.gpu = g.index;
    if (missing.empty()) {
      st.status = Status::pass;
    } else if (!all_uuids.count(g.uuid)) {
      st.status = Status::fail;
      st.reason = "no series at all for this GPU";
      Finding f;
      f.code = "telemetry.gpu_missing";
      f.severity = Severity::fail;
      f.gpu = g.index;
      f.detail = fmt::format("GPU {} ({}) reports no series at all", g.index, g.uuid);
      f.action = "check the exporter's GPU selection and that it runs on this node";
      j.findings.push_back(std::move(f));
      missing_gpus.push_back(fmt::format("GPU {}", g.index));
    } else {
      st.status = Status::fail;
      st.reason = fmt::format("missing {}", fmt::join(missing, ", "));
      for (const auto& series : missing) {
        Finding f;
        f.code = "telemetry.series_missing";
        f.severity = Severity::fail;
        f.gpu = g.index;
        f.detail = fmt::format("GPU {} ({}) does not report {}", g.index, g.uuid, series);
        f.action = "check the exporter's counters file (dcgm-exporter -f) and the DCGM field's support";
        j.findings.push_back(std::move(f));
      }
      incomplete_gpus.push_back(fmt::format("GPU {} lacks {}", g.index, fmt::join(missing, ", ")));
    }
    j.per_gpu.push_back(std::move(st));
  }
  for (const auto& u : all_uuids) {
    if (node_uuids.count(u)) continue;
    Finding f;
    f.code = "telemetry.unknown_gpu";
    f.severity = Severity::info;
    f.detail = fmt::format("the endpoint reports {}, which is not a GPU of this node", u);
    j.findings.push_back(std::move(f));
  }

  if (missing_gpus.empty() && incomplete_gpus.empty()) {
    j.status = Status::pass;
    return j;
  }
  j.status = Status::fail;
  std::vector<std::string> parts;
  if (!missing_gpus.empty()) parts.push_back(fmt::format("no telemetry for {}", fmt::join(missing_gpus, ", ")));
  for (auto& p : incomplete_gpus) parts.push_back(std::move(p));
  j.reason = fmt::format("{}", fmt::join(parts, "; "));
  return j;
}

}  // namespace gpuqual::probes
