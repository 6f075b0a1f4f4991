#include "suites/check_catalog.hpp"

#include "suites/check.hpp"

namespace gpuqual {

// check_catalog() itself is generated (cmake/write_check_catalog.cmake, suites/CMakeLists.txt)
// from each check file's GPUQUAL_REGISTER_CHECK line: there is no list of checks to keep here.

bool in_check_catalog(std::string_view name) {
  for (const auto& e : check_catalog()) {
    if (e.name == name) return true;
  }
  return false;
}

CheckAvailability check_availability(const std::string& name) {
  if (CheckRegistry::instance().find(name)) return CheckAvailability::built_in;
  if (in_check_catalog(name)) return CheckAvailability::not_built;
  return CheckAvailability::unknown;
}

}  // namespace gpuqual
