#pragma once
// Where the data gpuqual ships (baselines, suites, the health and Xid tables) is found.
#include <string>

namespace gpuqual {

// <prefix>/share/gpuqual/<name> beside an installed <prefix>/bin/gpuqual, or "" when this binary
// has no such directory (it runs from a build tree).
std::string installed_data_dir(const std::string& name);

// The first of: the flag's value, $env_var, installed_data_dir(name), `source_dir` (the source
// tree's copy, for a binary run from its build directory).
std::string data_dir(const std::string& flag_value, const char* env_var, const std::string& name,
                     const std::string& source_dir);

}  // namespace gpuqual
