#pragma once
// GPU faults in the window, from dcgm-exporter's series (docs/observe.md, "Faults"): Xids judged
// by the shipped Xid table, ECC, row-remap, PCIe and NVLink counters judged by the health
// finding table, and the time under thermal or power clock events against the control pool's.
// A fault the control pool shows as often as the canary is fleet-wide, not the canary's.
#include "core/judge/observe_judgement.hpp"
#include "core/judge/observe_policy.hpp"
#include "core/judge/observe_series.hpp"
#include "core/rules/health_severity.hpp"

namespace gpuqual::observe {

void judge_faults(const ObserveData& d, const ObservePolicy& p, const SeverityTable& table, Judgement& j);

// An Xid's severity under observe: the policy's `xids:` override, else the shipped table's, the
// application-caused ones the table rates info (their own_kernel_severity is for gpuqual's
// known-good kernels) raised to warn: under production load they are the workload's, a warning
// to look at. docs/observe.md's Xid table states it for each code it names.
Severity observe_xid_severity(int code, const ObservePolicy& p, const SeverityTable& table);

// The Xids a GPU's DCGM_FI_DEV_XID_ERRORS points show in the window: the gauge holds the last Xid,
// so an Xid is a change to a non-zero value (the value already there when the window opened
// happened before it). (time, code) pairs.
std::vector<std::pair<double, int>> xid_events(const std::vector<Point>& points, const Window& w);

}  // namespace gpuqual::observe
