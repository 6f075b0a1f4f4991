#pragma once
// Judges one scrape of a GPU exporter: every GPU of the node, by UUID, must report every
// expected series. A GPU with none of them is `telemetry.gpu_missing`, a GPU without some is
// `telemetry.series_missing`; both fail. Series for UUIDs the node does not have are reported
// (info): the endpoint may belong to another node.
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "probes/telemetry/prometheus_text.hpp"

namespace gpuqual::probes {

// dcgm-exporter's default counters that every current data-center GPU reports: temperature,
// power, clocks, utilisation, framebuffer, last XID, PCIe replays and row remapping.
// (ECC volatile totals are off in the default CSV; NVLink bandwidth is absent on PCIe cards;
// memory temperature is absent without an HBM sensor; row remapping needs Ampere or later.)
const std::vector<std::string>& default_dcgm_series();

struct TelemetryGpu {
  int index = 0;  // the node's GPU index (RunRecord::gpus)
  std::string uuid;
};

struct TelemetryJudgement {
  Status status = Status::error;
  std::string reason;
  std::vector<GpuCheckStatus> per_gpu;
  std::vector<Finding> findings;
  std::size_t expected_pairs = 0;  // GPUs × series
  std::size_t present_pairs = 0;
};

// `uuid_labels`: label keys that carry the GPU UUID ("UUID", and "uuid" with dcgm-exporter's
// --use-old-namespace).
TelemetryJudgement judge_telemetry(const PromDocument& doc, const std::vector<TelemetryGpu>& gpus,
                                   const std::vector<std::string>& expected_series,
                                   const std::vector<std::string>& uuid_labels = {"UUID", "uuid"});

}  // namespace gpuqual::probes
