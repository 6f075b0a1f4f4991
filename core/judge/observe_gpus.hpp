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

// One GPU's samples of one field after deduplication (docs/observe.md, "One source per GPU"):
// the points in time order, cut into runs of one series each. A counter is read within a run;
// across two runs of one source only as it goes on (a rise); never across two sources (two
// exporters' counters are not one counter).
struct GpuSeries {
  std::vector<Point> points;
  std::vector<std::size_t> run_starts;   // index into `points` of each run's first point (0 first)
  std::vector<std::size_t> run_sources;  // each run's source (an index, the same for one source)
  std::size_t sources = 0;               // sources that served this GPU (more than 1: duplicates)
};
using GpuPoints = std::map<GpuKey, GpuSeries>;

// The source of a series: its labels without the GPU's workload attribution and the Xid's text
// (pod, namespace, container, pod_uid, their exported_* forms, hpc_job, err_code, err_msg) and
// without __name__; so two exporter pods (instance, job, pod of the target) are two sources, and
// one exporter's series of one GPU whose workload labels change are one.
std::string source_key(const Series& s);

// Series of `nodes` only, grouped by (node label, gpu), one source per GPU: the source with the
// most samples (ties: the smaller source key) is read over the spans of its runs; another source
// only fills time outside the spans already read (an exporter restarted as a new pod). Within one
// source the series that began latest is read over its span and earlier ones only outside it (a
// workload label change, whose old series Prometheus still returns for its lookback; a GPU shared
// by two pods). Series without the node label are dropped.
GpuPoints group_by_gpu(const QueryResult& r, const std::string& node_label,
                       const std::vector<std::string>& nodes);

// GPUs whose field came from more than one source, as "gpu-node-07 GPU 3" texts.
std::vector<std::string> duplicated_gpus(const GpuPoints& g);

// Points of `node` (any GPU or none) of a workload's series: grouped by `node_label` alone.
std::map<std::string, std::vector<Point>> group_by_node(const QueryResult& r, const std::string& node_label);

double median_of(std::vector<double> v);
// The counter's increase over the points: the sum of positive steps (a drop is a reset, after
// which the new value counts from 0, as PromQL's increase() treats it).
double counter_growth(const std::vector<Point>& points);
// The same within each run, summed, plus each rise from a run to the next run of the same source:
// never a step from one source's sample to another's.
double counter_growth(const GpuSeries& s);
// Seconds of the window within the span of the GPU's runs (first to last sample of each, one
// step beyond each end): the time a counter's growth was watched over.
double watched_span(const GpuSeries& s, const Window& w);

// Longest stretches without a sample, longer than `max_gap_s`, including the window's two ends:
// (from, to) pairs in time order.
std::vector<std::pair<double, double>> gaps(const std::vector<Point>& points, const Window& w,
                                            double max_gap_s);
// Fraction of the window within `step` of a sample (0..1).
double coverage(const std::vector<Point>& points, const Window& w);

// "2026-12-03T12:00:00Z" for Unix seconds (the reasons name times this way).
std::string utc_text(double t);

}  // namespace gpuqual::observe
