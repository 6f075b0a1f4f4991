#pragma once
// The pieces of `gpuqual run` that turn flags into a plan, each testable on its own.
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "suites/suite.hpp"

namespace gpuqual {

// Where suite names are looked up: --suites-dir, else $GPUQUAL_SUITES_DIR, else the installed
// share/gpuqual/suites next to the binary, else the source tree's suites/.
std::string suites_dir(const std::string& flag_value);
// A name ("canary") → <dir>/<name>.yaml; anything with a '/' or a .yaml/.yml ending is a path.
// Throws InputError when the name has no file, listing the suites that exist.
std::string resolve_suite(const std::string& spec, const std::string& dir);
// Suite files in `dir`, sorted by name.
std::vector<std::string> suite_files(const std::string& dir);

// --only / --skip: names must be checks of the suite. Throws InputError (flag as the "file").
std::vector<SuiteCheck> select_checks(const Suite& suite, const std::vector<std::string>& only,
                                      const std::vector<std::string>& skip);

// --gpus "0,2" / "all" / "" → sorted indices (empty = all GPUs of the inventory). Throws
// InputError for syntax errors and duplicates; for an index the node does not have when the
// node has GPUs. On a node where no GPU was found, the selection cannot be checked and the
// run goes on: every GPU check then says why there is no GPU.
std::vector<int> select_gpus(const std::string& spec, const std::vector<GpuInfo>& node_gpus);

// results/<host>-<UTC timestamp>.json; a "-2", "-3", ... suffix when that file exists already.
std::string default_output_path(const std::string& hostname, const std::string& utc_compact);

// The side-file directory of a record: results/x.json → results/x.files
std::string side_dir_for(const std::string& record_path);

}  // namespace gpuqual
