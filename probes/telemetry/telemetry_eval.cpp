#include "probes/telemetry/telemetry_eval.hpp"

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

namespace {

// Which GPUs report which series: a sample belongs to the GPU its first UUID label names.
struct SeriesIndex {
  std::map<std::string, std::set<std::string>> uuids_by_series;
  std::set<std::string> all_uuids;
};

SeriesIndex index_series(const PromDocument& doc, const std::vector<std::string>& uuid_labels) {
  SeriesIndex index;
  for (const auto& s : doc.samples) {
    for (const auto& key : uuid_labels) {
      if (const std::string* u = s.label(key)) {
        index.uuids_by_series[s.name].insert(*u);
        index.all_uuids.insert(*u);
        break;
      }
    }
  }
  return index;
}

// The GPUs that report nothing, and those that lack some series, for the check's reason.
struct Shortfalls {
  std::vector<std::string> missing_gpus, incomplete_gpus;
};

// One GPU: which expected series it reports (counted in `j`), and a finding for what it lacks.
GpuCheckStatus judge_gpu(const TelemetryGpu& g, const std::vector<std::string>& expected_series,
                         const SeriesIndex& index, TelemetryJudgement& j, Shortfalls& shortfalls) {
  std::vector<std::string> missing;
  for (const auto& series : expected_series) {
    ++j.expected_pairs;
    auto it = index.uuids_by_series.find(series);
    if (it != index.uuids_by_series.end() && it->second.count(g.uuid)) {
      ++j.present_pairs;
    } else {
      missing.push_back(series);
    }
  }
  GpuCheckStatus st;
  st.gpu = g.index;
  if (missing.empty()) {
    st.status = Status::pass;
  } else if (!index.all_uuids.count(g.uuid)) {
    st.status = Status::fail;
    st.reason = "no series at all for this GPU";
    j.findings.push_back(Finding{
        .code = "telemetry.gpu_missing",
        .severity = Severity::fail,
        .gpu = g.index,
        .detail = fmt::format("GPU {} ({}) reports no series at all", g.index, g.uuid),
        .action = "check the exporter's GPU selection and that it runs on this node",
    });
    shortfalls.missing_gpus.push_back(fmt::format("GPU {}", g.index));
  } else {
    st.status = Status::fail;
    st.reason = fmt::format("missing {}", fmt::join(missing, ", "));
    for (const auto& series : missing) {
      j.findings.push_back(Finding{
          .code = "telemetry.series_missing",
          .severity = Severity::fail,
          .gpu = g.index,
          .detail = fmt::format("GPU {} ({}) does not report {}", g.index, g.uuid, series),
          .action = "check the exporter's counters file (dcgm-exporter -f) and the DCGM field's support",
      });
    }
    shortfalls.incomplete_gpus.push_back(fmt::format("GPU {} lacks {}", g.index, fmt::join(missing, ", ")));
  }
  return st;
}

// UUIDs the endpoint reports that are not this node's GPUs: said, never judged.
void note_unknown_gpus(const SeriesIndex& index, const std::set<std::string>& node_uuids,
                       TelemetryJudgement& j) {
  for (const auto& u : index.all_uuids) {
    if (node_uuids.count(u)) continue;
    j.findings.push_back(Finding{
        .code = "telemetry.unknown_gpu",
        .severity = Severity::info,
        .detail = fmt::format("the endpoint reports {}, which is not a GPU of this node", u),
    });
  }
}

}  // namespace

TelemetryJudgement judge_telemetry(const PromDocument& doc, const std::vector<TelemetryGpu>& gpus,
                                   const std::vector<std::string>& expected_series,
                                   const std::vector<std::string>& uuid_labels) {
  const SeriesIndex index = index_series(doc, uuid_labels);
  TelemetryJudgement j;
  std::set<std::string> node_uuids;
  Shortfalls shortfalls;
  for (const auto& g : gpus) {
    node_uuids.insert(g.uuid);
    j.per_gpu.push_back(judge_gpu(g, expected_series, index, j, shortfalls));
  }
  note_unknown_gpus(index, node_uuids, j);

  if (shortfalls.missing_gpus.empty() && shortfalls.incomplete_gpus.empty()) {
    j.status = Status::pass;
    return j;
  }
  j.status = Status::fail;
  std::vector<std::string> parts;
  if (!shortfalls.missing_gpus.empty())
    parts.push_back(fmt::format("no telemetry for {}", fmt::join(shortfalls.missing_gpus, ", ")));
  for (auto& p : shortfalls.incomplete_gpus) parts.push_back(std::move(p));
  j.reason = fmt::format("{}", fmt::join(parts, "; "));
  return j;
}

}  // namespace gpuqual::probes
