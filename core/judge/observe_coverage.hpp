#pragma once
// Completeness and load sufficiency of the canary (docs/observe.md, "Completeness", "Load"):
// every canary GPU reports for the window (monitoring lost after an upgrade is not a pass), and
// the canary's GPUs were busy enough for its numbers to say something (an idle canary proves
// nothing: inconclusive, with how busy it was).
#include "core/judge/observe_judgement.hpp"
#include "core/judge/observe_policy.hpp"
#include "core/judge/observe_series.hpp"

namespace gpuqual::observe {

void judge_completeness(const ObserveData& d, const ObservePolicy& p, Judgement& j);
void judge_load(const ObserveData& d, const ObservePolicy& p, Judgement& j);

// GPUs per node in the pool's utilization series; the control pool's median is what a canary
// node is expected to have when its Node's capacity is not given.
int expected_gpus(const ObserveData& d, const ObservePolicy& p, const std::string& node);

}  // namespace gpuqual::observe
