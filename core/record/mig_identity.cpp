#include "core/record/mig_identity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>

#include "core/record/mig_profiles.hpp"

namespace gpuqual {

namespace {

// A named size holds the instance's memory rounded up to whole GiB, less what the driver keeps:
// 9.75 GiB for a 1g.10gb, 4.75 for a 1g.5gb, 79.25 for a 7g.80gb (nvidia-smi mig -lgip).
constexpr double kMemoryLow = 0.75, kMemoryHigh = 1.10;
// A compute instance's SMs against its share of the parent's: MIG leaves some SMs unused
// (an A100's 7g has 98 of 108) and a 3g of an H100 gets 60 where 3/7 of 132 is 57.
constexpr double kSmLow = 0.5, kSmHigh = 1.5;

std::string gi_at(std::size_t g, std::size_t i) {
  return fmt::format("$.gpus[{}].mig.gpu_instances[{}]", g, i);
}
std::string ci_at(std::size_t g, std::size_t i, std::size_t c) {
  return fmt::format("{}.compute_instances[{}]", gi_at(g, i), c);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The compute slices of a compute instance: `<c>c.<GI profile>`, or its GI's own profile.
std::optional<int> compute_slices(const MigComputeInstance& ci, const MigGpuInstance& gi, int gi_slices) {
  if (ci.profile == gi.profile) return gi_slices;
  const auto dot = ci.profile.find("c.");
  if (dot == std::string::npos || ci.profile.substr(dot + 2) != gi.profile) return std::nullopt;
  const std::string c = ci.profile.substr(0, dot);
  if (c.empty() || c.size() > 2 || !std::all_of(c.begin(), c.end(), [](char x) { return std::isdigit(x); }))
    return std::nullopt;
  const int n = std::stoi(c);
  return n >= 1 && n <= gi_slices ? std::optional<int>(n) : std::nullopt;
}

std::optional<GpuIdentityProblem> gi_size_problem(const GpuInfo& gpu, const MigGpuInstance& gi,
                                                  const MigParentSpec* parent, const std::string& at) {
  const auto name = parse_mig_profile(gi.profile);
  if (!name) return std::nullopt;  // a name gpuqual cannot read: no size to compare
  if (gi.memory_bytes > 0) {
    const double gib = static_cast<double>(gi.memory_bytes) / static_cast<double>(1ull << 30);
    const double ratio = gib / name->memory_gb;
    if (ratio < kMemoryLow || ratio > kMemoryHigh)
      return GpuIdentityProblem{at + ".memory_bytes",
                                fmt::format("profile {} names {} GB, but the GPU instance has {:.2f} GiB",
                                            gi.profile, name->memory_gb, gib)};
  }
  if (!parent) return std::nullopt;
  const MigProfileSpec* spec = parent->find(gi.profile);
  if (!spec)
    return GpuIdentityProblem{at + ".profile",
                              fmt::format("{} is no MIG profile of {} ({}; NVIDIA MIG user guide, "
                                          "\"Supported MIG Profiles\")",
                                          gi.profile, parent->slug, gpu.name)};
  if (static_cast<int>(gi.placement_size) != spec->memory_slices)
    return GpuIdentityProblem{
        at + ".placement.size",
        fmt::format("profile {} spans {} of {} memory slices of {}, but the placement has {}", gi.profile,
                    spec->memory_slices, parent->memory_slices, parent->slug, gi.placement_size)};
  return std::nullopt;
}

std::optional<GpuIdentityProblem> ci_problem(const MigComputeInstance& ci, const MigGpuInstance& gi,
                                             const MigParentSpec* parent, const std::string& at) {
  const auto gi_name = parse_mig_profile(gi.profile);
  if (!gi_name) return std::nullopt;
  const auto slices = compute_slices(ci, gi, gi_name->compute_slices);
  if (!slices)
    return GpuIdentityProblem{
        at + ".profile",
        fmt::format("compute instance profile {} is not one of its GPU "
                    "instance's {} (<c>c.{} with c at most {}, or {})",
                    ci.profile, gi.profile, gi.profile, gi_name->compute_slices, gi.profile)};
  if (!parent || ci.sm_count <= 0) return std::nullopt;
  const double share = static_cast<double>(parent->sm_count) * *slices / parent->compute_slices;
  if (ci.sm_count < kSmLow * share || ci.sm_count > kSmHigh * share)
    return GpuIdentityProblem{
        at + ".sm_count",
        fmt::format("{} has {} SMs, but {} of {} compute slices of {} ({} SMs) is about {:.0f}", ci.profile,
                    ci.sm_count, *slices, parent->compute_slices, parent->slug, parent->sm_count, share)};
  return std::nullopt;
}

// The ids and sizes of one GPU's instances; `uuids` collects the MIG UUIDs of every GPU so far.
std::optional<GpuIdentityProblem> gpu_problem(const GpuInfo& gpu, std::size_t g,
                                              std::map<std::string, std::string>& uuids) {
  const MigParentSpec* parent = mig_parent_spec(hardware_class_slug(gpu.name, gpu.memory_bytes >> 20));
  std::set<unsigned> gi_ids;
  for (std::size_t i = 0; i < gpu.mig->gpu_instances.size(); ++i) {
    const MigGpuInstance& gi = gpu.mig->gpu_instances[i];
    if (!gi_ids.insert(gi.id).second)
      return GpuIdentityProblem{gi_at(g, i) + ".id",
                                fmt::format("GPU {} has two GPU instances with id {}", gpu.index, gi.id)};
    if (auto bad = gi_size_problem(gpu, gi, parent, gi_at(g, i))) return bad;
    std::set<unsigned> ci_ids;
    for (std::size_t c = 0; c < gi.compute_instances.size(); ++c) {
      const MigComputeInstance& ci = gi.compute_instances[c];
      const std::string at = ci_at(g, i, c);
      if (!ci_ids.insert(ci.id).second)
        return GpuIdentityProblem{at + ".id",
                                  fmt::format("GPU {}'s GPU instance {} has two compute instances "
                                              "with id {}",
                                              gpu.index, gi.id, ci.id)};
      const auto [it, fresh] = uuids.emplace(lower(ci.uuid), at);
      if (!fresh)
        return GpuIdentityProblem{at + ".uuid",
                                  fmt::format("{} is also the MIG device at {}: two MIG devices "
                                              "cannot share one UUID",
                                              ci.uuid, it->second)};
      if (auto bad = ci_problem(ci, gi, parent, at)) return bad;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<GpuIdentityProblem> mig_identity_problem(const std::vector<GpuInfo>& gpus) {
  std::map<std::string, std::string> uuids;  // lower-case MIG UUID → where it was first listed
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    if (!gpus[g].mig) continue;
    if (auto bad = gpu_problem(gpus[g], g, uuids)) return bad;
  }
  return std::nullopt;
}

}  // namespace gpuqual
