#include "core/record/mig_class.hpp"

#include <algorithm>
#include <cctype>

#include "core/record/hardware_class.hpp"
#include "core/record/mig_inventory.hpp"

namespace gpuqual {

namespace {

bool digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

constexpr std::string_view kMig = "-mig-";

}  // namespace

bool is_mig_profile_name(std::string_view p) {
  const auto g = p.find("g.");
  if (g == std::string_view::npos || p.size() < g + 5 || p.substr(p.size() - 2) != "gb") return false;
  return digits(p.substr(0, g)) && digits(p.substr(g + 2, p.size() - g - 4));
}

bool is_mig_compute_profile_name(std::string_view p) {
  const auto c = p.find("c.");
  return c != std::string_view::npos && digits(p.substr(0, c)) && is_mig_profile_name(p.substr(c + 2));
}

std::string mig_device_profile(const MigGpuInstance& gi, const MigComputeInstance& ci) {
  return is_mig_compute_profile_name(ci.profile) ? ci.profile : gi.profile;
}

std::string mig_device_class_slug(std::string_view parent_slug, const MigGpuInstance& gi,
                                  const MigComputeInstance& ci) {
  return mig_class_slug(parent_slug, mig_device_profile(gi, ci));
}

std::string mig_class_slug(std::string_view parent_slug, std::string_view profile) {
  return std::string(parent_slug) + std::string(kMig) + std::string(profile);
}

std::optional<MigClassParts> split_mig_class_slug(std::string_view slug) {
  const auto at = slug.rfind(kMig);
  if (at == std::string_view::npos) return std::nullopt;
  MigClassParts parts{std::string(slug.substr(0, at)), std::string(slug.substr(at + kMig.size()))};
  if (!is_mig_profile_name(parts.profile) && !is_mig_compute_profile_name(parts.profile)) return std::nullopt;
  return parts;
}

bool is_mig_class_slug(std::string_view slug) {
  const auto parts = split_mig_class_slug(slug);
  // The parent holds no '.', so it is a whole GPU's slug and never another MIG class.
  return parts && slug.size() <= 63 && parts->parent.find('.') == std::string::npos &&
         is_valid_class_slug(parts->parent);
}

std::vector<std::string> qualification_classes(const std::vector<GpuInfo>& gpus,
                                               const std::string& parent_slug) {
  std::vector<std::string> out;
  auto add = [&](std::string c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  };
  for (const GpuInfo& g : gpus) {
    if (!g.mig || !g.mig->current) add(parent_slug);
  }
  for (const GpuInfo& g : gpus) {
    if (!g.mig || !g.mig->current) continue;
    for (const MigGpuInstance& gi : g.mig->gpu_instances) {
      if (!is_mig_profile_name(gi.profile)) continue;
      for (const MigComputeInstance& ci : gi.compute_instances)
        add(mig_device_class_slug(parent_slug, gi, ci));
      if (gi.compute_instances.empty()) add(mig_class_slug(parent_slug, gi.profile));
    }
  }
  return out;
}

bool measured_per_mig_device(std::string_view check) {
  return check == "gemm" || check == "hbm" || check == "memtest" || check == "pcie" || check == "burnin";
}

}  // namespace gpuqual
