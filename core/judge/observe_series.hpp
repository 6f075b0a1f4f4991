#pragma once
// What `gpuqual observe` judges (docs/observe.md): the series a Prometheus-compatible server
// returned for a window, grouped by the query that produced them. Plain data, filled by the
// command's client (probes/telemetry/prometheus_api.hpp) or by tests with synthetic series.
#include <map>
#include <string>
#include <vector>

namespace gpuqual::observe {

struct Point {
  double t = 0;  // Unix seconds
  double v = 0;
};

// One series of a range query: its labels and its points in time order.
struct Series {
  std::map<std::string, std::string> labels;
  std::vector<Point> points;
  // The label's value, "" when absent.
  const std::string& label(const std::string& key) const;
};

// The answer to one query. `error` non-empty: the query failed (unreachable, HTTP error, bad
// PromQL, too many series); the judge names it with `query` and does not judge what needs it.
struct QueryResult {
  std::string query;
  std::string error;
  std::vector<Series> series;
};

struct Window {
  double start = 0;  // Unix seconds
  double end = 0;
  double step = 15;
  double length() const { return end - start; }
};

// The dcgm-exporter fields observe reads (names as the exporter's default-counters.csv and its
// commented-out lines spell them: NVIDIA/dcgm-exporter etc/default-counters.csv).
namespace field {
inline constexpr const char* kUtil = "DCGM_FI_DEV_GPU_UTIL";
inline constexpr const char* kXid = "DCGM_FI_DEV_XID_ERRORS";
inline constexpr const char* kDbe = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL";
inline constexpr const char* kSbe = "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL";
inline constexpr const char* kRemapCorrectable = "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS";
inline constexpr const char* kRemapUncorrectable = "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS";
inline constexpr const char* kRemapFailure = "DCGM_FI_DEV_ROW_REMAP_FAILURE";
inline constexpr const char* kRemapPending = "DCGM_FI_DEV_ROW_REMAP_PENDING";
inline constexpr const char* kPcieReplay = "DCGM_FI_DEV_PCIE_REPLAY_COUNTER";
inline constexpr const char* kNvlinkCrc = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL";
inline constexpr const char* kNvlinkReplay = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL";
inline constexpr const char* kThermalViolation = "DCGM_FI_DEV_THERMAL_VIOLATION";
inline constexpr const char* kPowerViolation = "DCGM_FI_DEV_POWER_VIOLATION";
// The clock-event reasons bitmask gauge, field 112 (NVIDIA/DCGM dcgmlib/dcgm_fields.h); exporters
// built on DCGM before 3.3 name it by its deprecated alias DCGM_FI_DEV_CLOCK_THROTTLE_REASONS, so
// the command asks for either (kClocksEventReasonsOld) under this one key.
inline constexpr const char* kClocksEventReasons = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS";
inline constexpr const char* kClocksEventReasonsOld = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS";
// The sample age of the utilization series: timestamp(DCGM_FI_DEV_GPU_UTIL), for gaps.
inline constexpr const char* kUtilAge = "timestamp(DCGM_FI_DEV_GPU_UTIL)";
// The fields judge_faults reads: each is watched (series for the whole window from every canary
// GPU that reports utilization) unless the policy lists it under `optional_series`.
inline constexpr const char* kFaultFields[] = {kXid,
                                               kDbe,
                                               kSbe,
                                               kRemapUncorrectable,
                                               kRemapCorrectable,
                                               kRemapFailure,
                                               kRemapPending,
                                               kPcieReplay,
                                               kNvlinkCrc,
                                               kNvlinkReplay,
                                               kThermalViolation,
                                               kPowerViolation,
                                               kClocksEventReasons};
}  // namespace field

// Every field query's answer (keys: the field::k* names) and each workload's (keys: its name).
struct ObserveData {
  Window window;
  std::vector<std::string> canary;
  std::vector<std::string> control;
  std::map<std::string, int> expected_gpus;  // node → GPUs its Node's capacity names (optional)
  std::map<std::string, QueryResult> fields;
  std::map<std::string, QueryResult> workloads;
};

}  // namespace gpuqual::observe
