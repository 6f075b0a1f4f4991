#pragma once
// The policy of `gpuqual observe` (`gpuqual.observe/v1`, YAML; docs/observe.md): which workload
// series to compare canary against control, and the limits every judgement uses. Only
// `schema` and `workloads` are required:
//
//   schema: gpuqual.observe/v1
//   workloads:
//     - {name: train.step_time, query: workload_step_time_seconds, node_label: node, direction: lower}
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual::observe {

inline constexpr const char* kObservePolicySchema = "gpuqual.observe/v1";

struct WorkloadPolicy {
  std::string name;
  std::string query;  // PromQL, evaluated as a range query over the window
  std::string node_label = "node";
  Direction direction = Direction::lower;
  double allowed_change = 0.02;  // fraction worse that still passes (2 %: diff's default)
  std::optional<double> warn_change;
  // No series from the canary pool for the whole window: a note instead of inconclusive. A
  // series that stops or starts partway is inconclusive all the same.
  bool optional = false;
};

struct ObservePolicy {
  std::string schema = kObservePolicySchema;
  // The label naming the node in dcgm-exporter's series: `Hostname` up to exporter 4.8.2,
  // lowercase `hostname` after NVIDIA/dcgm-exporter PR #655.
  std::string node_label = "Hostname";
  std::string window;  // "2h": the pipelines' default window ("" = the flag's)
  // How often the exporter's series are scraped: the default --step, and what max_gap's default
  // counts in.
  double scrape_interval_s = 15;
  // Load sufficiency: a GPU is busy when its window median of DCGM_FI_DEV_GPU_UTIL is at least
  // this many percent; a node is loaded when this fraction of its GPUs is busy.
  double min_utilization_pct = 20;
  double min_busy_fraction = 0.75;
  // Completeness: a gap longer than this between two samples of a canary GPU is named; a GPU
  // whose samples cover less than `min_coverage` of the window is incomplete (inconclusive).
  double max_gap_s = 60;  // 4 scrape intervals
  double min_coverage = 0.9;
  // Clock events: the unit of the violation counters (ns since NVIDIA/dcgm-exporter #589,
  // microseconds before) and the fraction of the window a canary GPU may spend throttled beyond
  // the control pool's median GPU before it counts.
  double violation_unit_s = 1e-9;
  double allowed_throttle_fraction = 0.05;
  // Workload comparison: the window is cut into `blocks` per node; each block's median is one
  // sample (samples 15 s apart are autocorrelated; block medians are not, to first order).
  int blocks = 8;
  double confidence = 0.95;
  // Consecutive-windows rule: the window is split into `split` parts; a workload fails only when
  // `consecutive` consecutive parts fail (Argo Rollouts #4792 asks for this).
  int split = 1;
  int consecutive = 1;
  // Xid severities over the shipped table (baselines/xid-severity.yaml): code → fail|warn|info.
  std::map<int, Severity> xid_overrides;
  // dcgm-exporter fields (field::kFaultFields) the exporter may not serve: with no series they are
  // a note ("not watched"), not inconclusive. Every other fault field must be there.
  std::set<std::string> optional_series;
  std::vector<WorkloadPolicy> workloads;
  std::string origin;
};

// Strict loader (yaml-cpp through core/base/yaml_tree): an unknown key, a wrong type, a value
// out of range: InputError "file: line N: $.path: problem" (exit 3).
ObservePolicy parse_observe_policy_yaml(const std::string& text, const std::string& origin);
ObservePolicy load_observe_policy(const std::string& path);

// "15s", "90m", "2h", "1d", "1h30m" → seconds; nullopt when not such a duration (or not > 0).
std::optional<double> parse_duration_s(const std::string& text);

}  // namespace gpuqual::observe
