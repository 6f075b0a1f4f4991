#include "core/record/mig_profiles.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "core/record/hardware_class.hpp"
#include "core/record/mig_class.hpp"

namespace gpuqual {

namespace {

// NVIDIA MIG user guide, "Supported MIG Profiles": the A100-SXM4-40GB table, and for 80 GB parts
// "the profile names change according to the memory proportion" (1g.10gb ... 7g.80gb); the H100
// and H200 tables. Memory slices: 1/8, 2/8 (a 1g with twice the memory, and 2g), 4/8 (3g, 4g),
// full (7g).
constexpr std::array kA100_40{MigProfileSpec{"1g.5gb", 1, 1},  MigProfileSpec{"1g.10gb", 1, 2},
                              MigProfileSpec{"2g.10gb", 2, 2}, MigProfileSpec{"3g.20gb", 3, 4},
                              MigProfileSpec{"4g.20gb", 4, 4}, MigProfileSpec{"7g.40gb", 7, 8}};
constexpr std::array kGpu80{MigProfileSpec{"1g.10gb", 1, 1}, MigProfileSpec{"1g.20gb", 1, 2},
                            MigProfileSpec{"2g.20gb", 2, 2}, MigProfileSpec{"3g.40gb", 3, 4},
                            MigProfileSpec{"4g.40gb", 4, 4}, MigProfileSpec{"7g.80gb", 7, 8}};
constexpr std::array kH200{MigProfileSpec{"1g.18gb", 1, 1}, MigProfileSpec{"1g.35gb", 1, 2},
                           MigProfileSpec{"2g.35gb", 2, 2}, MigProfileSpec{"3g.71gb", 3, 4},
                           MigProfileSpec{"4g.71gb", 4, 4}, MigProfileSpec{"7g.141gb", 7, 8}};

const std::array kParents{
    MigParentSpec{"a100-sxm-40gb", 108, 7, 8, kA100_40}, MigParentSpec{"a100-pcie-40gb", 108, 7, 8, kA100_40},
    MigParentSpec{"a100-sxm-80gb", 108, 7, 8, kGpu80},   MigParentSpec{"a100-pcie-80gb", 108, 7, 8, kGpu80},
    MigParentSpec{"h100-sxm-80gb", 132, 7, 8, kGpu80},   MigParentSpec{"h100-pcie-80gb", 114, 7, 8, kGpu80},
    MigParentSpec{"h200-sxm-141gb", 132, 7, 8, kH200},
};

// "1g.10gb+me" → "1g.10gb".
std::string_view without_extension(std::string_view profile) { return profile.substr(0, profile.find('+')); }

bool number(std::string_view text, int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && out > 0;
}

// The memory a product's name states ("NVIDIA-A100-SXM4-80GB" → 80), or 0.
int named_memory_gb(std::string_view product) {
  std::size_t from = 0;
  while (from < product.size()) {
    const std::size_t dash = std::min(product.find('-', from), product.size());
    const std::string_view token = product.substr(from, dash - from);
    int gb = 0;
    if (token.size() > 2 &&
        (token.substr(token.size() - 2) == "GB" || token.substr(token.size() - 2) == "gb") &&
        number(token.substr(0, token.size() - 2), gb))
      return gb;
    from = dash + 1;
  }
  return 0;
}

}  // namespace

const MigProfileSpec* MigParentSpec::find(std::string_view profile) const {
  const std::string_view name = without_extension(profile);
  for (const MigProfileSpec& p : profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const MigParentSpec* mig_parent_spec(std::string_view parent_slug) {
  for (const MigParentSpec& p : kParents) {
    if (p.slug == parent_slug) return &p;
  }
  return nullptr;
}

std::optional<MigProfileName> parse_mig_profile(std::string_view profile) {
  const std::string_view name = without_extension(profile);
  if (!is_mig_profile_name(name)) return std::nullopt;
  const auto g = name.find("g.");
  MigProfileName out;
  if (!number(name.substr(0, g), out.compute_slices) ||
      !number(name.substr(g + 2, name.size() - g - 4), out.memory_gb))
    return std::nullopt;
  return out;
}

std::optional<std::string> mig_slice_class_from_product_label(std::string_view product) {
  const auto at = product.rfind("-MIG-");
  if (at == std::string_view::npos) return std::nullopt;
  const std::string parent_product(product.substr(0, at));
  const std::string_view profile = product.substr(at + 5);
  const auto name = parse_mig_profile(profile);
  if (!name) return std::nullopt;
  const int named_gb = named_memory_gb(parent_product);
  // The label's memory is the slice's, not the GPU's. The parent is the known one whose class the
  // product gives at the parent's memory, that has the profile, whose memory the profile's share
  // gives, and that the memory in the product's name (when it states one) names: 1g.10gb is 2/8
  // of an A100 40GB and 1/8 of an 80GB one.
  for (const MigParentSpec& p : kParents) {
    const auto gb_at = p.slug.rfind('-');
    int gb = 0;
    if (!number(p.slug.substr(gb_at + 1, p.slug.size() - gb_at - 3), gb)) continue;
    const MigProfileSpec* spec = p.find(profile);
    if (!spec || (named_gb != 0 && named_gb != gb) ||
        hardware_class_slug(parent_product, static_cast<std::uint64_t>(gb) * 1024) != p.slug)
      continue;
    const double parent_gb = static_cast<double>(name->memory_gb) * p.memory_slices / spec->memory_slices;
    if (parent_gb >= 0.85 * gb && parent_gb <= 1.15 * gb)
      return mig_class_slug(p.slug, without_extension(profile));
  }
  return std::nullopt;
}

}  // namespace gpuqual
