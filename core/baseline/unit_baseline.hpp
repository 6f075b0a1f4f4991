#pragma once
// Which baseline judges which part of a record (docs/baselines.md, "Which baseline judges what").
// The one answer compare, diff, gate, matrix, report and baseline build use; none of them looks a
// class up on its own. A record is judged in units, each against the baseline of its own class:
//
//   whole GPU             the record's class (h100-sxm-80gb), also for node-scope figures (NCCL)
//                         and for a GPU in MIG mode's own readings (health reads the parent GPU);
//   vGPU                  a GPU whose virtualization_mode is `vgpu`: the record's class, which the
//                         vGPU's own name and framebuffer give (core/record/hardware_class.hpp), so
//                         a fractional vGPU profile is a class of its own, never the whole GPU's;
//   MIG slice             a MIG device whose compute instance spans its GPU instance:
//                         `<class>-mig-<GPU instance profile>` (h100-sxm-80gb-mig-3g.40gb);
//   MIG compute instance  a MIG device whose compute instance spans fewer compute slices than its
//                         GPU instance: `<class>-mig-<compute-instance profile>`
//                         (h100-sxm-80gb-mig-1c.3g.40gb); never the whole slice's figures.
//
// (core/record/mig_class.hpp names the MIG classes.) A unit whose class has no baseline is not
// judged: the verdict is inconclusive, never a pass.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/record/record.hpp"

namespace gpuqual {

enum class UnitKind { whole_gpu, vgpu, mig_slice, mig_compute_instance };

std::string_view to_string(UnitKind kind);

struct JudgedUnit {
  UnitKind kind = UnitKind::whole_gpu;
  // The class whose baseline judges the unit; "" for a MIG device the record does not list
  // (the reader refuses such a record, so only a record built in memory has one).
  std::string slug;
};

// The unit that a figure of `r` (a metric, a per-GPU status, a finding) belongs to: on GPU `gpu`
// (nullopt: the node) and MIG device `mig_device` ("" when on no MIG device).
JudgedUnit judged_unit(const RunRecord& r, const std::optional<int>& gpu, std::string_view mig_device);

// True when that figure is judged by the record's own class (whole GPUs, vGPUs, the node): what a
// whole-GPU pool median and a whole-GPU class baseline may take from the record.
bool judged_by_record_class(const RunRecord& r, const std::optional<int>& gpu, std::string_view mig_device);

// The baselines of one record's units. `own` is the baseline of the record's class as the command
// resolved it (`--baseline FILE`, or auto; null: none); every other class (the MIG slices and
// compute instances) comes from `source` (null: none can be found, so those units stay unjudged).
// Each class is looked up once.
class UnitBaselines {
 public:
  UnitBaselines(const RunRecord& r, const Baseline* own, BaselineSource* source);

  const Baseline* for_class(const std::string& slug);
  const Baseline* for_unit(const JudgedUnit& unit) { return for_class(unit.slug); }
  // The classes other than the record's own that were asked for and have no baseline, sorted.
  std::vector<std::string> classes_without_baseline() const;

 private:
  std::string own_slug_;
  const Baseline* own_;
  BaselineSource* source_;
  std::map<std::string, const Baseline*> found_;
};

}  // namespace gpuqual
