// main() of gpuqual-testbin: the gpuqual CLI, plus two test hooks. GPUQUAL_TESTBIN_UNBUILD=a,b
// removes those checks from the registry, in the runner and in every re-executed child alike,
// which is exactly what a gpuqual built without them looks like. GPUQUAL_TESTBIN_STAND_IN=a,b
// puts the device stand-in (device_stand_in.cpp) in place of those checks, under their names.
#include <cstdlib>
#include <sstream>
#include <string>

#include "runner/cli/cli.hpp"
#include "suites/check.hpp"
#include "test_check_support.hpp"

namespace {

// Calls `fn` with each name of the comma-separated list in environment variable `var`.
template <class Fn>
void for_each_listed(const char* var, Fn fn) {
  const char* names = std::getenv(var);
  if (!names) return;
  std::stringstream list(names);
  std::string name;
  while (std::getline(list, name, ',')) fn(name);
}

}  // namespace

int main(int argc, char** argv) {
  auto& registry = gpuqual::CheckRegistry::instance();
  for_each_listed("GPUQUAL_TESTBIN_UNBUILD", [&](const std::string& name) { registry.remove(name); });
  for_each_listed("GPUQUAL_TESTBIN_STAND_IN", [&](const std::string& name) {
    registry.remove(name);
    registry.add(gpuqual::CheckInfo{name,
                                    "test stand-in for a CUDA device check",
                                    false,
                                    [] { return gpuqual::testbin::make_device_stand_in(); },
                                    {}});
  });
  return gpuqual::cli_main(argc, argv);
}
