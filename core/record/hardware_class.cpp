#include "core/record/hardware_class.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include "core/base/text_case.hpp"
#include "core/record/gpu_match.hpp"
#include "core/record/mig_class.hpp"
#include "core/record/mig_profiles.hpp"

namespace gpuqual {

namespace {

enum class FormFactor { none, sxm, pcie, nvl };

std::string_view form_factor_slug(FormFactor f) {
  switch (f) {
    case FormFactor::sxm:
      return "sxm";
    case FormFactor::pcie:
      return "pcie";
    case FormFactor::nvl:
      return "nvl";
    case FormFactor::none:
      return "";
  }
  return "";
}

// One known product. `model` is the product's tokens as they open the (lower-cased,
// tokenized) NVML name; `default_form` applies when the name carries no form-factor token
// (the H100/H200 SXM modules are named without one; L4/L40S only exist as PCIe cards).
// FormFactor::none as default means: the name must say it (A100), or the product has no
// separate form factor (GB200 superchip). `capacities_gb` are the marketed sizes the product
// ships in; the reported MiB is matched to the nearest one (see marketing_gb).
struct Product {
  std::array<std::string_view, 3> model;
  std::string_view slug;
  FormFactor default_form;
  bool form_required;  // true: a name without a form-factor token is not this product's class
  std::array<int, 3> capacities_gb;
};

// Adding a product is one row: its NVML name as seen in nvidia-smi -L, the slug, and its
// marketed memory sizes (docs/hardware-class.md lists the names and memory sizes).
// B300 and GB300 are Blackwell Ultra: the HGX module reports "NVIDIA B300 SXM6 AC" (275040 MiB,
// sold as 288 GB), the Grace superchip "NVIDIA GB300" (284208 MiB; 279 GB usable per GPU).
constexpr std::array<Product, 10> kProducts = {{
    {{"h200"}, "h200", FormFactor::sxm, false, {141}},
    {{"h100"}, "h100", FormFactor::sxm, false, {80, 94, 96}},
    {{"a100"}, "a100", FormFactor::none, true, {40, 80}},
    {{"l40s"}, "l40s", FormFactor::pcie, false, {48}},
    {{"l4"}, "l4", FormFactor::pcie, false, {24}},
    {{"b200"}, "b200", FormFactor::sxm, false, {180}},
    {{"gb200"}, "gb200", FormFactor::none, false, {186}},
    {{"b300"}, "b300", FormFactor::sxm, false, {288}},
    {{"gb300"}, "gb300", FormFactor::none, false, {279}},
    {{"rtx", "6000", "ada"}, "rtx-6000-ada", FormFactor::pcie, false, {48}},
}};

std::vector<std::string> tokenize_lower(const std::string& name) {
  std::vector<std::string> tokens;
  std::string cur;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      cur += static_cast<char>(std::tolower(c));
    } else if (c == '.') {
      cur += '.';  // keep "1g.10gb"-like tokens whole
    } else if (!cur.empty()) {
      tokens.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) tokens.push_back(std::move(cur));
  return tokens;
}

std::optional<FormFactor> form_factor_token(std::string_view t) {
  if (t == "pcie") return FormFactor::pcie;
  if (t == "nvl") return FormFactor::nvl;
  if (t.substr(0, 3) == "sxm" && std::all_of(t.begin() + 3, t.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    return FormFactor::sxm;
  }
  return std::nullopt;
}

}  // namespace

// Marketing GB from the MiB the driver reports. The reported total is always a little under
// the marketed size, by different amounts: HBM parts lose ~0.5 % to reserved memory
// (H200 143771 MiB = 140.4 GiB sold as 141 GB; H100 81559 MiB = 79.6 GiB sold as 80 GB),
// GDDR parts with ECC on lose 1/16 to the ECC carve-out (L40S 46068 MiB = 45.0 GiB sold as
// 48 GB; L4 23034 MiB sold as 24 GB), and CUDA's totalGlobalMem is another ~0.5 % below NVML.
// No single arithmetic rule fits all of them (rounding H200 gives 140; undoing the ECC
// carve-out on B200 gives 192), so the product's marketed sizes decide: the nearest capacity C
// with 0.90 <= GiB / C <= 1.02. A total that fits none (a variant not in the table) falls back
// to ceil(GiB), which names a class no baseline has rather than a wrong one.
int marketing_memory_gb(std::uint64_t memory_mib, std::span<const int> capacities_gb) {
  const double gib = static_cast<double>(memory_mib) / 1024.0;
  int best = 0;
  double best_distance = 0;
  for (int c : capacities_gb) {
    if (c <= 0) continue;
    const double ratio = gib / c;
    if (ratio < 0.90 || ratio > 1.02) continue;
    const double distance = std::abs(gib - c);
    if (best == 0 || distance < best_distance) {
      best = c;
      best_distance = distance;
    }
  }
  return best != 0 ? best : static_cast<int>(std::ceil(gib));
}

std::string gfd_product_label(const std::string& nvml_name) {
  // GFD (k8s-device-plugin internal/lm): regexp [^A-Za-z0-9-_. ] replaced by "", then
  // strings.Join(strings.Fields(s), "-"). Byte-wise deletion equals Go's rune-wise deletion:
  // every byte of a multi-byte or invalid UTF-8 sequence is outside the kept set.
  std::string kept;
  for (char ch : nvml_name) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep = (c < 0x80 && std::isalnum(c)) || c == '-' || c == '_' || c == '.' || c == ' ';
    if (keep) kept += ch;
  }
  std::string out;
  bool pending_blank = false;
  for (char c : kept) {
    if (c == ' ') {
      pending_blank = !out.empty();  // leading blanks vanish (strings.Fields)
      continue;
    }
    if (pending_blank) out += '-';
    pending_blank = false;
    out += c;
  }
  return out;  // trailing blanks vanish: pending_blank is dropped
}

std::string hardware_class_slug(const std::string& product_name, std::uint64_t memory_mib) {
  if (memory_mib == 0) return "unknown";
  std::vector<std::string> tokens = tokenize_lower(product_name);
  // Drivers before ~470 named the A100 "A100-SXM4-40GB"; later ones prefix "NVIDIA ".
  if (!tokens.empty() && tokens.front() == "nvidia") tokens.erase(tokens.begin());
  // A MIG instance ("...-MIG-1g.10gb") is a slice, not the GPU: its memory is the slice's.
  if (std::find(tokens.begin(), tokens.end(), "mig") != tokens.end()) return "unknown";
  for (const Product& p : kProducts) {
    std::size_t model_len = 0;
    bool match = true;
    for (std::string_view m : p.model) {
      if (m.empty()) break;
      if (model_len >= tokens.size() || tokens[model_len] != m) {
        match = false;
        break;
      }
      ++model_len;
    }
    if (!match) continue;
    std::optional<FormFactor> named;
    for (std::size_t i = model_len; i < tokens.size(); ++i) {
      auto f = form_factor_token(tokens[i]);
      if (!f) continue;
      if (named && *named != *f) return "unknown";  // "SXM" and "PCIe" in one name: not ours to guess
      named = f;
    }
    FormFactor form = named.value_or(p.default_form);
    if (!named && p.form_required) return "unknown";
    const int gb = marketing_memory_gb(memory_mib, p.capacities_gb);
    const std::string_view ff = form_factor_slug(form);
    return ff.empty() ? fmt::format("{}-{}gb", p.slug, gb) : fmt::format("{}-{}-{}gb", p.slug, ff, gb);
  }
  return "unknown";
}

HardwareClass derive_hardware_class(const std::vector<GpuInfo>& gpus) {
  HardwareClass hw;
  hw.gpu_count = static_cast<int>(gpus.size());
  if (gpus.empty()) {
    hw.slug = "unknown";
    return hw;
  }
  const GpuInfo& first = gpus.front();
  const std::uint64_t mib = first.memory_bytes >> 20;
  hw.slug = hardware_class_slug(first.name, mib);
  hw.product = gfd_product_label(first.name);
  if (mib != 0) hw.memory_mib = mib;
  for (const GpuInfo& g : gpus) {
    const bool same_as_first = g.name == first.name && (g.memory_bytes >> 20) == mib;
    // Two different unknown products both slug to "unknown": compare the names too. A GPU like
    // the first needs no second derivation (readers derive the class of every record they read).
    if (!same_as_first &&
        (g.name != first.name || hardware_class_slug(g.name, g.memory_bytes >> 20) != hw.slug)) {
      hw.slug = "mixed";
      hw.product.clear();
      hw.memory_mib.reset();
      return hw;
    }
    if ((g.memory_bytes >> 20) != mib) hw.memory_mib.reset();  // same class, but no one number
  }
  return hw;
}

namespace {

constexpr const char* kTwice = "one card counted twice";

// normalize_pci_bus_id's "dddd:bb:dd.f" without its sscanf for the form every writer uses
// (NVML's 8-digit or sysfs' 4-digit domain, then "bb:dd.f"): the readers key every GPU of every
// record (gate reads 100,000; docs/performance.md).
std::string slot_key(const std::string& id) {
  const auto colon = id.find(':');
  const bool usual = colon != std::string::npos && colon > 0 && colon <= 8 && id.size() == colon + 8 &&
                     id[colon + 3] == ':' && id[colon + 6] == '.' &&
                     std::all_of(id.begin() + static_cast<std::ptrdiff_t>(colon) + 1, id.end(), [](char c) {
                       return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
                     });
  unsigned domain = 0;
  if (!usual || std::from_chars(id.data(), id.data() + colon, domain, 16).ptr != id.data() + colon) {
    return normalize_pci_bus_id(id);
  }
  return fmt::format("{:04x}:{}", domain, to_lower(std::string_view(id).substr(colon + 1)));
}

std::optional<GpuIdentityProblem> duplicate_gpu_problem(const std::vector<GpuInfo>& gpus) {
  std::vector<std::string> uuids, buses;
  uuids.reserve(gpus.size());
  buses.reserve(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const GpuInfo& g = gpus[i];
    auto field = [&](const char* name) { return fmt::format("$.gpus[{}].{}", i, name); };
    uuids.push_back(gpu_uuid_key(g.uuid));
    if (uuids.back().empty()) {
      return GpuIdentityProblem{
          field("uuid"),
          fmt::format("GPU {} has no UUID: a GPU the record cannot name may be {}", g.index, kTwice)};
    }
    for (std::size_t k = 0; k + 1 < uuids.size(); ++k) {
      if (uuids[k] == uuids.back()) {
        return GpuIdentityProblem{field("uuid"), fmt::format("duplicate GPU UUID {} (GPU {} has it too): {}",
                                                             g.uuid, gpus[k].index, kTwice)};
      }
    }
    // An empty bus id was not read (the UUID still names the card); "0000:19:00.0" and
    // "00000000:19:00.0" are one slot.
    buses.push_back(g.pci_bus_id.empty() ? std::string() : slot_key(g.pci_bus_id));
    if (buses.back().empty()) continue;
    for (std::size_t k = 0; k + 1 < buses.size(); ++k) {
      if (buses[k] == buses.back()) {
        return GpuIdentityProblem{field("pci_bus_id"),
                                  fmt::format("duplicate PCI bus id {} (GPU {} has it too): {}", g.pci_bus_id,
                                              gpus[k].index, kTwice)};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<GpuIdentityProblem> gpu_identity_problem(const HardwareClass& stated,
                                                       const std::vector<GpuInfo>& gpus) {
  if (auto dup = duplicate_gpu_problem(gpus)) return dup;
  if (stated.gpu_count != static_cast<int>(gpus.size())) {
    return GpuIdentityProblem{
        "$.hardware_class.gpu_count",
        fmt::format("the class says {} GPUs, $.gpus has {}", stated.gpu_count, gpus.size())};
  }
  if (stated.overridden || stated.slug == "unknown") return std::nullopt;
  const HardwareClass derived = derive_hardware_class(gpus);
  if (derived.slug == stated.slug) return std::nullopt;
  const std::string what = gpus.empty() ? std::string("no GPU")
                           : derived.slug == "mixed"
                               ? std::string("more than one product")
                               : fmt::format("{} x \"{}\", {} MiB", gpus.size(), gpus.front().name,
                                             gpus.front().memory_bytes >> 20);
  return GpuIdentityProblem{
      "$.hardware_class.slug",
      fmt::format(
          "the record says class {}, its GPUs ({}) give {}; another class than the GPUs' is an override "
          "(--class, hardware_class.overridden)",
          stated.slug, what, derived.slug)};
}

std::string unread_gpu_uuid(const GpuInfo& g) {
  return g.pci_bus_id.empty() ? fmt::format("unread:gpu{}", g.index) : "unread:" + g.pci_bus_id;
}

bool is_unread_gpu_uuid(std::string_view uuid) { return uuid.starts_with("unread:"); }

std::string gpu_uuid_key(std::string_view uuid) {
  constexpr std::string_view kBlank = " \t\r\n\v\f";
  const auto first = uuid.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  std::string key = to_lower(uuid.substr(first, uuid.find_last_not_of(kBlank) - first + 1));
  if (key.starts_with("gpu-")) key.erase(0, 4);
  return key;
}

namespace {
constexpr std::string_view kOverrideMark = " is an override (--class); its GPUs give ";
}  // namespace

std::optional<std::string> class_override_note(const RunRecord& r) {
  if (!r.hardware_class.overridden) return std::nullopt;
  return fmt::format("class {}{}{}", r.hardware_class.slug, kOverrideMark,
                     derive_hardware_class(r.gpus).slug);
}

std::size_t class_overrides_noted(const std::vector<std::string>& reasons) {
  return static_cast<std::size_t>(std::count_if(reasons.begin(), reasons.end(), [](const std::string& why) {
    return why.find(kOverrideMark) != std::string::npos;
  }));
}

std::map<std::string, std::string> gfd_labels(const HardwareClass& hw) {
  std::map<std::string, std::string> labels;
  if (!hw.product.empty()) labels["nvidia.com/gpu.product"] = hw.product;
  if (hw.memory_mib && *hw.memory_mib != 0) labels["nvidia.com/gpu.memory"] = std::to_string(*hw.memory_mib);
  labels["nvidia.com/gpu.count"] = std::to_string(hw.gpu_count);
  return labels;
}

namespace {

// The class of a product that ships in one memory size (H200 141 GB, B200 180 GB) from its name
// alone; "unknown" when it ships in several or gpuqual does not know it.
std::string one_size_slug(const std::string& product) {
  for (const Product& p : kProducts) {
    int sizes = 0, size = 0;
    for (int c : p.capacities_gb) {
      if (c > 0) {
        ++sizes;
        size = c;
      }
    }
    if (sizes != 1) continue;
    const std::string slug = hardware_class_slug(product, static_cast<std::uint64_t>(size) * 1024);
    if (slug.rfind(std::string(p.slug) + "-", 0) == 0) return slug;  // the name is this product's
  }
  return "unknown";
}

// GFD's single strategy labels the MIG devices, not the GPUs: `<product>-MIG-1g.10gb`, with the
// slice's memory (docs/mig.md, "Classes and floors"). The node is of the slice class: its parent
// from NVIDIA's profile table (core/record/mig_profiles.hpp), else from a product that ships in one
// memory size; "unknown" only for a product gpuqual does not know.
std::string single_strategy_slice_class(const std::string& product) {
  if (auto known = mig_slice_class_from_product_label(product)) return *known;
  const auto at = product.rfind("-MIG-");
  const std::string profile = product.substr(at + 5);
  if (!is_mig_profile_name(profile)) return "unknown";
  const std::string parent = one_size_slug(product.substr(0, at));
  return parent == "unknown" ? parent : mig_class_slug(parent, profile);
}

}  // namespace

HardwareClass hardware_class_from_gfd_labels(const std::map<std::string, std::string>& labels) {
  auto label = [&](const char* key) -> std::string {
    auto it = labels.find(key);
    return it == labels.end() ? std::string() : it->second;
  };
  // Labels are text: anything that is not a plain decimal number counts as absent.
  auto number = [](const std::string& text) -> std::optional<std::uint64_t> {
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return v;
  };
  HardwareClass hw;
  hw.product = label("nvidia.com/gpu.product");
  if (auto mib = number(label("nvidia.com/gpu.memory")); mib && *mib != 0) hw.memory_mib = *mib;
  if (auto count = number(label("nvidia.com/gpu.count")); count && *count <= 1024)
    hw.gpu_count = static_cast<int>(*count);
  hw.slug = hw.product.empty() ? "unknown" : hardware_class_slug(hw.product, hw.memory_mib.value_or(0));
  if (hw.product.find("-MIG-") != std::string::npos) hw.slug = single_strategy_slice_class(hw.product);
  return hw;
}

bool is_valid_class_slug(std::string_view slug) {
  if (is_mig_class_slug(slug)) return true;  // "<parent>-mig-1g.10gb" (core/record/mig_class.hpp)
  if (slug.empty() || slug.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(slug.front()) || !alnum(slug.back())) return false;
  return std::all_of(slug.begin(), slug.end(), [&](char c) { return alnum(c) || c == '-'; });
}

}  // namespace gpuqual
