#pragma once
// Judging MIG devices (docs/mig.md, "Measuring each slice"). A metric measured on a MIG device
// (Metric::mig_device) is judged against the baseline of its unit's class (a slice's
// `<record class>-mig-<GPU instance profile>`, a narrower compute instance's
// `<record class>-mig-<compute-instance profile>`: core/baseline/unit_baseline.hpp), never
// against the whole GPU's or the whole slice's; a GPU in MIG mode is no whole GPU, so the whole GPU's per-GPU
// expectations do not ask it for metrics (compare.cpp). What a slice class needs, each MIG device of that
// class must answer. No baseline for a slice class, or no source to look one up in, leaves its metrics
// unjudged: the verdict is inconclusive, never a pass.
#include <string>
#include <vector>

#include "core/baseline/unit_baseline.hpp"
#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// True when GPU `g` is in MIG mode now: its work runs on its MIG devices, not on it.
bool gpu_in_mig_mode(const GpuInfo& g);

// Adds a row for every per-slice metric of `r`, judged against its unit's baseline from `units`,
// and a row for every per-GPU expectation of such a baseline that a MIG device of its class did
// not answer. Returns the reasons the verdict cannot be a pass: a MIG class without a baseline, a
// GPU in MIG mode with no MIG device.
std::vector<std::string> add_slice_metric_rows(const RunRecord& r, UnitBaselines& units, Verdict& v);

}  // namespace gpuqual
