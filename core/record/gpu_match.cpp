#include "core/record/gpu_match.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

namespace gpuqual {

namespace {

std::string lower_trimmed(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::string normalize_pci_bus_id(const std::string& text) {
  const std::string t = lower_trimmed(text);
  if (t.empty()) return "";
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  int used = 0;
  if (std::sscanf(t.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &device, &function, &used) == 4 &&
      used == static_cast<int>(t.size())) {
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
  }
  if (std::sscanf(t.c_str(), "%x:%x.%x%n", &bus, &device, &function, &used) == 3 &&
      used == static_cast<int>(t.size())) {
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", 0u, bus, device, function);
  }
  return t;
}

std::optional<int> GpuMatching::after_for(int before_index) const {
  for (const auto& p : pairs) {
    if (p.before == before_index) return p.after;
  }
  return std::nullopt;
}

std::optional<int> GpuMatching::before_for(int after_index) const {
  for (const auto& p : pairs) {
    if (p.after && *p.after == after_index) return p.before;
  }
  return std::nullopt;
}

GpuMatching match_gpus(const std::vector<GpuInfo>& before, const std::vector<GpuInfo>& after) {
  GpuMatching m;
  std::vector<bool> taken(after.size(), false);
  m.pairs.reserve(before.size());
  for (const auto& b : before) m.pairs.push_back({b.index, std::nullopt, ""});
  // Pass 1: UUIDs, so a slot match can never take a card another GPU matches by identity.
  for (std::size_t i = 0; i < before.size(); ++i) {
    const std::string u = lower_trimmed(before[i].uuid);
    if (u.empty()) continue;
    for (std::size_t j = 0; j < after.size(); ++j) {
      if (!taken[j] && lower_trimmed(after[j].uuid) == u) {
        taken[j] = true;
        m.pairs[i].after = after[j].index;
        m.pairs[i].matched_by = "uuid";
        break;
      }
    }
  }
  // Pass 2: PCI bus id, only where a UUID is unknown on either side.
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (m.pairs[i].after) continue;
    const std::string p = normalize_pci_bus_id(before[i].pci_bus_id);
    if (p.empty()) continue;
    for (std::size_t j = 0; j < after.size(); ++j) {
      if (taken[j] || normalize_pci_bus_id(after[j].pci_bus_id) != p) continue;
      if (!before[i].uuid.empty() && !after[j].uuid.empty())
        continue;  // both known and different: another card
      taken[j] = true;
      m.pairs[i].after = after[j].index;
      m.pairs[i].matched_by = "pci_bus_id";
      break;
    }
  }
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (!taken[j]) m.only_after.push_back(after[j].index);
  }
  return m;
}

}  // namespace gpuqual
