#include <algorithm>

#include "suites/check.hpp"

namespace gpuqual {

CheckRegistry& CheckRegistry::instance() {
  static CheckRegistry registry;  // function-local: safe from static initialisation order
  return registry;
}

bool CheckRegistry::add(CheckInfo info) {
  const std::string name = info.name;
  return checks_.emplace(name, std::move(info)).second;
}

const CheckInfo* CheckRegistry::find(const std::string& name) const {
  auto it = checks_.find(name);
  return it == checks_.end() ? nullptr : &it->second;
}

bool CheckRegistry::remove(const std::string& name) { return checks_.erase(name) > 0; }

std::vector<const CheckInfo*> CheckRegistry::all(bool include_test_only) const {
  std::vector<const CheckInfo*> out;
  for (const auto& [name, info] : checks_) {
    if (include_test_only || !info.test_only) out.push_back(&info);
  }
  return out;  // std::map keeps them sorted by name
}

}  // namespace gpuqual
