#include "device/pcie/pcie_plan.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>

#include "core/base/text_case.hpp"
#include "kernels/copy_pattern.cuh"

namespace gpuqual {

std::string_view to_string(CopyDirection d) {
  switch (d) {
    case CopyDirection::h2d:
      return "h2d";
    case CopyDirection::d2h:
      return "d2h";
    case CopyDirection::bidir:
      return "bidir";
  }
  return "?";
}

std::optional<CopyDirection> parse_copy_direction(std::string_view text) {
  for (auto d : all_copy_directions()) {
    if (text == to_string(d)) return d;
  }
  return std::nullopt;
}

std::vector<CopyDirection> all_copy_directions() {
  return {CopyDirection::h2d, CopyDirection::d2h, CopyDirection::bidir};
}

double copy_bytes_per_op(CopyDirection d, std::uint64_t bytes) {
  return static_cast<double>(bytes) * (d == CopyDirection::bidir ? 2.0 : 1.0);
}

std::string pcie_metric_name(CopyDirection d) { return "pcie." + std::string(to_string(d)) + ".gbps"; }
std::string pcie_all_metric_name(CopyDirection d) {
  return "pcie.all." + std::string(to_string(d)) + ".gbps";
}

std::string p2p_metric_name(bool bidirectional, int from, int to) {
  return std::string("p2p.") + (bidirectional ? "bidir." : "uni.") + std::to_string(from) + "_" +
         std::to_string(to) + ".gbps";
}

std::optional<std::string> sysfs_pci_address(std::string_view bus_id) {
  // domain:bus:device.function, hex; the domain may have 4 or 8 digits.
  const auto first = bus_id.find(':');
  if (first == std::string_view::npos) return std::nullopt;
  std::string_view domain = bus_id.substr(0, first), rest = bus_id.substr(first + 1);
  if (domain.empty() || domain.size() > 8 || rest.size() != 7 || rest[2] != ':' || rest[5] != '.')
    return std::nullopt;
  auto hex = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  };
  if (!hex(domain) || !hex(rest.substr(0, 2)) || !hex(rest.substr(3, 2)) || !hex(rest.substr(6, 1)))
    return std::nullopt;
  // An 8-digit domain's upper half must be zero to fit sysfs's 4 digits.
  std::string d(domain);
  while (d.size() > 4) {
    if (d.front() != '0') return std::nullopt;
    d.erase(d.begin());
  }
  while (d.size() < 4) d.insert(d.begin(), '0');
  return to_lower(d + ":" + std::string(rest));
}

std::optional<int> read_numa_node(const std::string& sysfs_root, const std::string& address) {
  std::ifstream in(sysfs_root + "/bus/pci/devices/" + address + "/numa_node");
  int node = -1;
  if (!(in >> node) || node < 0) return std::nullopt;
  return node;
}

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    const auto dash = item.find('-');
    int lo = 0, hi = 0;
    auto parse = [](std::string_view s, int& v) {
      auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size() && v >= 0;
    };
    if (dash == std::string_view::npos) {
      if (!parse(item, lo)) return std::nullopt;
      hi = lo;
    } else if (!parse(item.substr(0, dash), lo) || !parse(item.substr(dash + 1), hi) || hi < lo) {
      return std::nullopt;
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    pos = comma + 1;
  }
  return cpus;
}

std::optional<std::vector<int>> read_numa_cpus(const std::string& sysfs_root, int node) {
  std::ifstream in(sysfs_root + "/devices/system/node/node" + std::to_string(node) + "/cpulist");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return parse_cpu_list(line);
}

void fill_pattern_host(std::uint64_t* words, std::uint64_t count, std::uint64_t seed) {
  for (std::uint64_t i = 0; i < count; ++i) words[i] = kernels::copy_pattern_word(seed, i);
}

std::uint64_t count_pattern_mismatches_host(const std::uint64_t* words, std::uint64_t count,
                                            std::uint64_t seed, std::uint64_t* first_bad) {
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (words[i] != kernels::copy_pattern_word(seed, i)) {
      if (bad == 0 && first_bad) *first_bad = i;
      ++bad;
    }
  }
  return bad;
}

std::vector<std::pair<int, int>> ordered_pairs(const std::vector<int>& gpus) {
  std::vector<std::pair<int, int>> out;
  for (int i : gpus)
    for (int j : gpus)
      if (i != j) out.emplace_back(i, j);
  return out;
}

std::vector<std::pair<int, int>> unordered_pairs(const std::vector<int>& gpus) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t a = 0; a < gpus.size(); ++a)
    for (std::size_t b = a + 1; b < gpus.size(); ++b) out.emplace_back(gpus[a], gpus[b]);
  return out;
}

std::vector<std::pair<int, int>> ring_ordered_pairs(const std::vector<int>& gpus) {
  std::vector<std::pair<int, int>> out;
  if (gpus.size() < 2) return out;
  for (std::size_t i = 0; i < gpus.size(); ++i) out.emplace_back(gpus[i], gpus[(i + 1) % gpus.size()]);
  return out;
}

std::vector<std::pair<int, int>> ring_unordered_pairs(const std::vector<int>& gpus) {
  std::vector<std::pair<int, int>> out;
  for (auto [a, b] : ring_ordered_pairs(gpus)) {
    const std::pair<int, int> edge{std::min(a, b), std::max(a, b)};
    if (std::find(out.begin(), out.end(), edge) == out.end()) out.push_back(edge);
  }
  return out;
}

}  // namespace gpuqual
