#pragma once
// The `telemetry` check: scrape a Prometheus endpoint (default dcgm-exporter on
// http://localhost:9400/metrics) and require every expected series for every GPU of the node.
//
//   url: http://localhost:9400/metrics
//   url_env: GPUQUAL_TELEMETRY_URL        # this variable, when set, replaces url (a pod's hostIP)
//   series: [DCGM_FI_DEV_GPU_TEMP, ...]   # default: default_dcgm_series()
//   timeout_s: 10
//   uuid_labels: [UUID, uuid]             # label keys carrying the GPU UUID
//   gpu_uuids: [GPU-..., ...]             # instead of the inventory's GPUs (index = position)
//
// Endpoint down, an HTTP error or an oversized answer → error; text that is not the exposition
// format → fail (Prometheus could not scrape it either); a GPU or a series missing → fail; no
// GPU known on the node → skip.
#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/record/record.hpp"
#include "probes/telemetry/telemetry_eval.hpp"

namespace gpuqual::probes {

struct TelemetryConfig {
  std::string url = "http://localhost:9400/metrics";
  std::string url_from;  // "$GPUQUAL_TELEMETRY_URL" when url_env supplied the URL
  std::vector<std::string> series = default_dcgm_series();
  double timeout_s = 10;
  std::vector<std::string> uuid_labels = {"UUID", "uuid"};
  std::vector<std::string> gpu_uuids;  // overrides the inventory when non-empty
  std::size_t max_bytes = 64u << 20;
};

// Throws InputError(origin, "$.series[2]", problem).
TelemetryConfig parse_telemetry_params(const nlohmann::json& params, const std::string& origin);

// `node_gpus`: the inventory's GPUs; `no_gpu_reason` explains an empty list.
CheckResult run_telemetry(const TelemetryConfig& config, const std::vector<GpuInfo>& node_gpus,
                          const std::string& no_gpu_reason, const std::atomic<bool>* stop);

}  // namespace gpuqual::probes
