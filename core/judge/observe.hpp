#pragma once
// `gpuqual observe`: the canary pool against a control pool under real load, from the series a
// Prometheus-compatible server holds (docs/observe.md). Per canary node: completeness (every GPU
// reports for the window), load sufficiency (busy enough to prove something), GPU faults
// (Xids, ECC, row remaps, PCIe, NVLink, clock events, HW slowdown); each workload metric of the
// policy, canary against control with the noise model, for the pool and (several canary nodes)
// per canary node. Outcome by decide_outcome: a fault or a
// confirmed regression fails; an idle or incomplete canary, or a failed query, is inconclusive.
// Deterministic: the same series and window give the same verdict.
#include <string>

#include "core/judge/observe_policy.hpp"
#include "core/judge/observe_series.hpp"
#include "core/rules/health_severity.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual::observe {

struct ObserveOptions {
  const SeverityTable* table = nullptr;  // the shipped Xid and health finding tables (required)
  std::string source;                    // the Prometheus URL, as the verdict names it
  bool strict = false;
};

Verdict judge_observation(const ObserveData& d, const ObservePolicy& p, const ObserveOptions& o);

}  // namespace gpuqual::observe
