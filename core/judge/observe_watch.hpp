#pragma once
// Whether a fault field was watched over the whole window (docs/observe.md, "Watched series"):
// a field with no series at all, a canary GPU that reports utilization but not the field, and a
// field's series that stops or starts partway while the GPU keeps reporting are each not
// watched: inconclusive, unless the policy lists the field under `optional_series` (a note). A
// fault seen in the part that exists still counts; a pass is never given on that part alone.
#include <set>

#include "core/judge/observe_gpus.hpp"
#include "core/judge/observe_judgement.hpp"
#include "core/judge/observe_policy.hpp"
#include "core/judge/observe_series.hpp"

namespace gpuqual::observe {

// The canary GPUs whose DCGM_FI_DEV_GPU_UTIL covers at least `min_coverage` of the window: each
// must report every required field for as long (the others are judge_completeness's).
std::set<GpuKey> reporting_canary_gpus(const ObserveData& d, const ObservePolicy& p);

// The field's name as reasons give it (the clock-event reasons with their older name).
std::string field_text(const char* field);

// Reasons (unjudged, or notes for an optional field) for each way `field` was not watched.
void judge_watched(const char* field, const GpuPoints& canary, const GpuPoints& control,
                   const std::set<GpuKey>& reporting, const ObserveData& d, const ObservePolicy& p,
                   Judgement& j);

}  // namespace gpuqual::observe
