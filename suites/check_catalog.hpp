#pragma once
// The names of every check the gpuqual project ships, whether or not this binary was built with
// it. It draws the line between two different mistakes in a suite:
//   - a name in neither the catalog nor the registry is a typo → the suite is rejected (exit 3);
//   - a catalog name missing from the registry is a check this build lacks (its file left out
//     of the build) → the run records it as `error` "check X is not built into this
//     gpuqual", so the run is inconclusive instead of silently passing without it.
#include <span>
#include <string>
#include <string_view>

namespace gpuqual {

struct CatalogEntry {
  std::string_view name;
  std::string_view description;  // shown by `gpuqual list` when the check is not built in
};

// Every check whose file is in suites/, sorted by name (the order `gpuqual list` prints the
// registry in). Generated at build time from the GPUQUAL_REGISTER_CHECK lines
// (cmake/write_check_catalog.cmake): a check needs nothing more than that line to be in it, and
// its description here is the one it registers.
std::span<const CatalogEntry> check_catalog();
bool in_check_catalog(std::string_view name);

// "registered" (built in), "not built" (catalog only) or "unknown".
enum class CheckAvailability { built_in, not_built, unknown };
CheckAvailability check_availability(const std::string& name);

}  // namespace gpuqual
