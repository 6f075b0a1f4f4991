#pragma once
// The workloads' own numbers, canary against control (docs/observe.md, "Workloads"): the
// policy's PromQL per node, each node's window cut into blocks, each block's median one sample,
// and the canary's block medians (the pool's; with several canary nodes also each node's, so one
// slow node is named) against the control's with the noise model `diff` uses (Hodges-Lehmann
// shift, Mann-Whitney/Moses interval; core/verdict/noise_model.hpp). Samples 15 s apart are
// autocorrelated, so a test on them would be overconfident; medians of blocks of many samples
// are close to independent (bench/observe_report.cpp measures the false fails).
#include <vector>

#include "core/judge/observe_judgement.hpp"
#include "core/judge/observe_policy.hpp"
#include "core/judge/observe_series.hpp"

namespace gpuqual::observe {

void judge_workloads(const ObserveData& d, const ObservePolicy& p, Judgement& j);

// The median of each of `blocks` equal parts of [from, to) of `points` (parts without a sample
// are left out).
std::vector<double> block_medians(const std::vector<Point>& points, double from, double to, int blocks);

}  // namespace gpuqual::observe
