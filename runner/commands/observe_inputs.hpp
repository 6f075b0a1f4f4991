#pragma once
// What `gpuqual observe` gathers before it judges (docs/observe.md): the pools (named, or
// selected by label from a Node list as `plan` reads it), the window, and every series from the
// Prometheus HTTP API, one bounded range query per field and per workload, run concurrently.
#include <optional>
#include <string>
#include <vector>

#include "core/judge/observe_policy.hpp"
#include "core/judge/observe_series.hpp"
#include "probes/telemetry/prometheus_api.hpp"

namespace gpuqual {

struct ObservePools {
  std::vector<std::string> canary, control;
  std::map<std::string, int> expected_gpus;  // from the Node list's allocatable nvidia.com/gpu
};

// --canary/--control lists, or --canary-label/--control-label KEY=VALUE over --nodes FILE.
// Empty pools, a node in both, a label without a Node list: InputError (exit 3).
ObservePools resolve_pools(const std::string& canary, const std::string& control,
                           const std::string& canary_label, const std::string& control_label,
                           const std::string& nodes_file);

// The window ending at `end_text` (RFC 3339 or Unix seconds; "" = now, or $GPUQUAL_NOW) of
// `window_text` (a duration), sampled every `step_text`. InputError naming the flag.
observe::Window resolve_window(const std::string& window_text, const std::string& end_text,
                               const std::string& step_text);

// The PromQL of each dcgm-exporter field for the pools' nodes: FIELD{node_label=~"a|b"}.
std::map<std::string, std::string> field_queries(const observe::ObservePolicy& p, const ObservePools& pools);

// Every query's answer (failures recorded in each QueryResult, never thrown).
observe::ObserveData gather(const probes::PrometheusClient& client, const observe::ObservePolicy& p,
                            const ObservePools& pools, const observe::Window& w);

// --wait's one cheap request before it waits: the pools' utilization over the last step. When
// Prometheus does not answer it (unreachable, an HTTP or API error), the data of window `w` with
// that error in every query, as gather records a failed query, for the judge to name: nullopt
// when it answered.
std::optional<observe::ObserveData> check_prometheus(const probes::PrometheusClient& client,
                                                     const observe::ObservePolicy& p,
                                                     const ObservePools& pools, const observe::Window& w);

}  // namespace gpuqual
