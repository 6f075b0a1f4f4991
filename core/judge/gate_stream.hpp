#pragma once
// Runs a gate over record files: read, judge, keep the summary, drop the record. Records are
// judged on `jobs` threads, each with its own reader; the pool then takes them in command-line
// order, so duplicates resolve the same way on any number of threads.
#include <string>
#include <vector>

#include "core/baseline/class_baselines.hpp"
#include "core/judge/gate.hpp"

namespace gpuqual {

// Directories stand for the *.json files directly inside them (sorted); files stay as given.
// A path that does not exist, and a *.json entry that is not a regular file once links are
// followed (a dangling link, a folder, a FIFO), is an InputError naming it: never skipped.
std::vector<std::string> expand_record_paths(const std::vector<std::string>& args);

// `jobs` 0: one per hardware thread. An unreadable or malformed record is an InputError (exit
// 3); with several, the first on the command line is reported.
Verdict gate_records(const std::vector<std::string>& paths, BaselineSource& baselines,
                     const GateOptions& options, unsigned jobs = 0);

}  // namespace gpuqual
