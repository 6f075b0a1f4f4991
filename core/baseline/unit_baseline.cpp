#include "core/baseline/unit_baseline.hpp"

#include "core/record/mig_class.hpp"
#include "core/record/mig_inventory.hpp"

namespace gpuqual {

std::string_view to_string(UnitKind kind) {
  switch (kind) {
    case UnitKind::whole_gpu:
      return "whole GPU";
    case UnitKind::vgpu:
      return "vGPU";
    case UnitKind::mig_slice:
      return "MIG slice";
    case UnitKind::mig_compute_instance:
      return "MIG compute instance";
  }
  return "whole GPU";
}

JudgedUnit judged_unit(const RunRecord& r, const std::optional<int>& gpu, std::string_view mig_device) {
  JudgedUnit unit{UnitKind::whole_gpu, r.hardware_class.slug};
  if (!gpu) return unit;
  const GpuInfo* g = nullptr;
  for (const GpuInfo& candidate : r.gpus) {
    if (candidate.index == *gpu) g = &candidate;
  }
  if (!g) return unit;
  if (mig_device.empty()) {
    if (g->virtualization_mode == "vgpu") unit.kind = UnitKind::vgpu;
    return unit;
  }
  const auto dev = g->mig ? find_mig_device(*g->mig, mig_device) : std::nullopt;
  if (!dev) return JudgedUnit{UnitKind::mig_slice, ""};
  const std::string profile = mig_device_profile(*dev->gpu_instance, *dev->compute_instance);
  unit.kind = profile == dev->gpu_instance->profile ? UnitKind::mig_slice : UnitKind::mig_compute_instance;
  unit.slug = mig_class_slug(r.hardware_class.slug, profile);
  return unit;
}

bool judged_by_record_class(const RunRecord& r, const std::optional<int>& gpu, std::string_view mig_device) {
  return mig_device.empty() || judged_unit(r, gpu, mig_device).slug == r.hardware_class.slug;
}

UnitBaselines::UnitBaselines(const RunRecord& r, const Baseline* own, BaselineSource* source)
    : own_slug_(r.hardware_class.slug), own_(own), source_(source) {}

const Baseline* UnitBaselines::for_class(const std::string& slug) {
  if (slug == own_slug_) return own_;
  auto [it, added] = found_.try_emplace(slug, nullptr);
  if (added && source_ && !slug.empty()) it->second = source_->for_class(slug);
  return it->second;
}

std::vector<std::string> UnitBaselines::classes_without_baseline() const {
  std::vector<std::string> out;
  for (const auto& [slug, b] : found_) {
    if (!b) out.push_back(slug.empty() ? "(a MIG device the record does not list)" : slug);
  }
  return out;
}

}  // namespace gpuqual
