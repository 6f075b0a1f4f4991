#pragma once
// The series of one query grouped by node and GPU (dcgm-exporter's node label and `gpu`), and
// the window summaries observe judges them by: a gauge's median, a counter's growth, the time
// its samples cover. docs/observe.md.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/judge/observe_series.hpp"

namespace gpuqual::observe {

struct GpuKey {
  std::string node;
  std::string gpu;  // the exporter's `gpu` label (the GPU index as a string)
  auto operator<=>(const GpuKey&) const = default;
  std::string text() const;  // "gpu-node-07 GPU 3"
};

// Every point of the GPU's series (an Xid series per err_code, a series per pod), time-sorted.
using GpuPoints = std::map<GpuKey, std::vector<Point>>;

// Series of `nodes` only, grouped by (node label, gpu). Series without the node label are dropped.
GpuPoints group_by_gpu(const QueryResult& r, const std::string& node_label,
                       const std::vector<std::string>& nodes);

// Points of `node` (any GPU or none) of a workload's series: grouped by `node_label` alone.
std::map<std::string, std::vector<Point>> group_by_node(const QueryResult& r, const std::string& node_label);

double median_of(std::vector<double> v);
// The counter's increase over the points: the sum of positive steps (a drop is a reset, after
// which the new value counts from 0, as PromQL's increase() treats it).
double counter_growth(const std::vector<Point>& points);

// Longest stretches without a sample, longer than `max_gap_s`, including the window's two ends:
// (from, to) pairs in time order.
std::vector<std::pair<double, double>> gaps(const std::vector<Point>& points, const Window& w,
                                            double max_gap_s);
// Fraction of the window within `step` of a sample (0..1).
double coverage(const std::vector<Point>& points, const Window& w);

// "2026-12-03T12:00:00Z" for Unix seconds (the reasons name times this way).
std::string utc_text(double t);

}  // namespace gpuqual::observe
