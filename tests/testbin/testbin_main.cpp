// main() of gpuqual-testbin: the gpuqual CLI, plus one test hook. GPUQUAL_TESTBIN_UNBUILD=a,b
// removes those checks from the registry, in the runner and in every re-executed child alike,
// which is exactly what a gpuqual built without them looks like.
#include <cstdlib>
#include <sstream>
#include <string>

#include "runner/cli/cli.hpp"
#include "suites/check.hpp"

int main(int argc, char** argv) {
  if (const char* names = std::getenv("GPUQUAL_TESTBIN_UNBUILD")) {
    std::stringstream list(names);
    std::string name;
    while (std::getline(list, name, ',')) gpuqual::CheckRegistry::instance().remove(name);
  }
  return gpuqual::cli_main(argc, argv);
}
