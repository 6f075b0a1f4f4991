#include "runner/run/device_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/base/input_error.hpp"
#include "core/record/mig_class.hpp"
#include "core/record/mig_inventory.hpp"
#include "core/record/record_lookup.hpp"
#include "core/record/status.hpp"

namespace gpuqual {

namespace {

constexpr std::array<std::string_view, 2> kBetweenGpuChecks{"p2p", "nccl_allreduce"};

bool in_mig_mode(const GpuInfo* g) { return g && g->mig && g->mig->current; }

// The whole GPUs as one part, addressed by UUID: CUDA's own ordinals on a node with MIG GPUs
// are not the record's.
DevicePart whole_part(const std::vector<const GpuInfo*>& whole, const std::string& parent_class) {
  DevicePart part;
  part.hardware_class = parent_class;
  std::string indices;
  for (const GpuInfo* g : whole) {
    part.record_gpus.push_back(g->index);
    indices += (indices.empty() ? "" : ",") + std::to_string(g->index);
    if (g->uuid.empty() && part.problem.empty()) {
      part.problem =
          fmt::format("GPU {} has no UUID in the record, so no child can be shown it alone", g->index);
    }
    part.visible_devices += (part.visible_devices.empty() ? "" : ",") + g->uuid;
  }
  part.label = "whole GPUs " + indices;
  return part;
}

// One part per MIG device (compute instance) of `g`, in NVML's order.
void add_slice_parts(const GpuInfo& g, const std::string& parent_class, std::vector<DevicePart>& parts) {
  for (const MigGpuInstance& gi : g.mig->gpu_instances) {
    for (const MigComputeInstance& ci : gi.compute_instances) {
      DevicePart part;
      part.label = fmt::format("GPU {} {} ({})", g.index, ci.uuid, ci.profile);
      part.visible_devices = ci.uuid;
      part.record_gpus = {g.index};
      part.mig_device = ci.uuid;
      part.hardware_class = mig_device_class_slug(parent_class, gi, ci);
      parts.push_back(std::move(part));
    }
  }
}

void map_gpu(std::optional<int>& gpu, std::string& mig_device, const DevicePart& part,
             const std::string& file, const std::string& where) {
  if (!gpu) return;
  if (*gpu < 0 || static_cast<std::size_t>(*gpu) >= part.record_gpus.size()) {
    throw InputError(file, where, fmt::format("GPU {} is not a device of this part ({})", *gpu, part.label));
  }
  gpu = part.record_gpus[static_cast<std::size_t>(*gpu)];
  mig_device = part.mig_device;
}

// A slice that reported no per-GPU status gets one, so each slice is one row (JUnit testcase).
void add_slice_status(const DevicePart& part, const CheckResult& r, CheckResult& merged) {
  if (part.mig_device.empty() || !r.per_gpu.empty()) return;
  GpuCheckStatus s;
  s.gpu = part.record_gpus.front();
  s.status = r.status;
  s.reason = r.reason;
  s.reason_code = r.reason_code;
  s.mig_device = part.mig_device;
  merged.per_gpu.push_back(std::move(s));
}

}  // namespace

bool runs_per_mig_device(std::string_view check) { return measured_per_mig_device(check); }

bool runs_on_cuda_devices(std::string_view check) {
  return runs_per_mig_device(check) ||
         std::find(kBetweenGpuChecks.begin(), kBetweenGpuChecks.end(), check) != kBetweenGpuChecks.end();
}

std::vector<DevicePart> device_parts(std::string_view check, const std::vector<int>& selected,
                                     const std::vector<GpuInfo>& gpus, const std::string& parent_class) {
  if (!runs_on_cuda_devices(check)) return {};
  std::vector<const GpuInfo*> whole, mig;
  for (int i : selected) {
    const GpuInfo* g = find_gpu(gpus, i);
    if (!g) continue;
    (in_mig_mode(g) ? mig : whole).push_back(g);
  }
  if (mig.empty()) return {};
  std::vector<DevicePart> parts;
  if (!whole.empty()) parts.push_back(whole_part(whole, parent_class));
  if (runs_per_mig_device(check)) {
    for (const GpuInfo* g : mig) add_slice_parts(*g, parent_class, parts);
  }
  return parts;
}

RunRecord part_inventory(const RunRecord& record, const DevicePart& part) {
  RunRecord view = record;
  view.checks.clear();
  view.gpus.clear();
  // The record's class stays (the child is told the slice's class in its task, not here); its
  // count is the part's, and a slice's GPU is no product of its own: an override, as --class is.
  view.hardware_class.gpu_count = static_cast<int>(part.record_gpus.size());
  if (!part.mig_device.empty()) view.hardware_class.overridden = true;
  for (std::size_t k = 0; k < part.record_gpus.size(); ++k) {
    const GpuInfo* g = find_gpu(record.gpus, part.record_gpus[k]);
    if (!g) continue;
    GpuInfo seen = *g;
    seen.index = static_cast<int>(k);
    if (!part.mig_device.empty() && g->mig) {
      if (const auto dev = find_mig_device(*g->mig, part.mig_device)) {
        seen.uuid = part.mig_device;
        seen.memory_bytes = dev->gpu_instance->memory_bytes;
        seen.sm_count = dev->compute_instance->sm_count;
      }
      seen.mig.reset();  // the child sees a device, not a partitioned GPU
      seen.mig_enabled = false;
    }
    view.gpus.push_back(std::move(seen));
  }
  return view;
}

void map_part_result(CheckResult& result, const DevicePart& part, const std::string& file) {
  for (std::size_t i = 0; i < result.metrics.size(); ++i) {
    map_gpu(result.metrics[i].gpu, result.metrics[i].mig_device, part, file,
            fmt::format("$.metrics[{}].gpu", i));
  }
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    map_gpu(result.findings[i].gpu, result.findings[i].mig_device, part, file,
            fmt::format("$.findings[{}].gpu", i));
  }
  for (std::size_t i = 0; i < result.per_gpu.size(); ++i) {
    std::optional<int> gpu = result.per_gpu[i].gpu;
    map_gpu(gpu, result.per_gpu[i].mig_device, part, file, fmt::format("$.per_gpu[{}].gpu", i));
    result.per_gpu[i].gpu = *gpu;
  }
}

CheckResult merge_part_results(const std::string& check, const std::vector<DevicePart>& parts,
                               std::vector<CheckResult> results) {
  CheckResult merged;
  merged.name = check;
  merged.status = Status::pass;
  bool same_code = true;
  for (std::size_t k = 0; k < results.size() && k < parts.size(); ++k) {
    CheckResult& r = results[k];
    const DevicePart& part = parts[k];
    merged.status = k == 0 ? r.status : worse_of(merged.status, r.status);
    if (!r.reason.empty())
      merged.reason += fmt::format("{}{}: {}", merged.reason.empty() ? "" : "; ", part.label, r.reason);
    same_code = same_code && r.reason_code == results.front().reason_code;
    if (merged.started_at.empty() || (!r.started_at.empty() && r.started_at < merged.started_at))
      merged.started_at = r.started_at;
    merged.duration_s = std::max(merged.duration_s, r.duration_s);
    add_slice_status(part, r, merged);
    std::move(r.per_gpu.begin(), r.per_gpu.end(), std::back_inserter(merged.per_gpu));
    std::move(r.metrics.begin(), r.metrics.end(), std::back_inserter(merged.metrics));
    std::move(r.findings.begin(), r.findings.end(), std::back_inserter(merged.findings));
    for (auto& [key, value] : r.attributes) {
      merged.attributes[part.mig_device.empty() ? key : part.mig_device + "/" + key] = std::move(value);
    }
  }
  if (same_code && !results.empty() && merged.status == Status::skip)
    merged.reason_code = results.front().reason_code;
  return merged;
}

}  // namespace gpuqual
