#include "core/rules/pci_relation.hpp"

#include <algorithm>

namespace gpuqual {

std::string_view pci_relation(const std::vector<std::string>& a, std::optional<int> a_numa,
                              const std::vector<std::string>& b, std::optional<int> b_numa) {
  if (a.size() < 2 || b.size() < 2) return "unknown";  // at least the root complex and the function
  // The ancestors: every component but the function itself.
  const std::size_t na = a.size() - 1, nb = b.size() - 1;
  std::size_t common = 0;
  while (common < std::min(na, nb) && a[common] == b[common]) ++common;
  if (common >= 2) return "pcie_switch";
  if (common == 1) return "host_bridge";
  if (!a_numa || !b_numa) return "unknown";
  return *a_numa == *b_numa ? "numa_node" : "cross_numa";
}

}  // namespace gpuqual
