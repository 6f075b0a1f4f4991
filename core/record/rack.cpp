#include "core/record/rack.hpp"

namespace gpuqual {

std::string rack_of(const std::map<std::string, std::string>& labels, const std::string& rack_label) {
  auto it = labels.find(rack_label);
  if (it == labels.end()) return "";
  const std::string& value = it->second;
  if (rack_label != kCliqueLabel) return value;
  const auto dot = value.rfind('.');
  if (dot == std::string::npos || dot == 0) return value;
  return value.substr(0, dot);
}

}  // namespace gpuqual
