#pragma once
// `gpuqual matrix build` over record files: read each record the way gate does (the simdjson
// StreamingRecordReader, `jobs` threads, each with its own reader), judge it as `compare
// --baseline auto` would (core/judge/compare.hpp against the class's baseline from `baselines`),
// keep only its MatrixObservation, drop the record. The builder then takes the observations in
// command-line order, so the matrix is the same on any number of threads.
#include <string>
#include <vector>

#include "core/baseline/class_baselines.hpp"
#include "core/fleet/matrix.hpp"

namespace gpuqual {

struct MatrixBuildResult {
  Matrix matrix;
  std::vector<std::string> unreadable;  // "path: problem", in command-line order
};

// `jobs` 0: one per hardware thread. An unreadable record is left out and listed (a fleet's
// matrix must not stop at one truncated file); when none can be read, the first one's
// InputError is thrown (exit 3), as is a bad baseline file.
MatrixBuildResult build_matrix(const std::vector<std::string>& paths, BaselineSource& baselines,
                               int min_nodes, unsigned jobs = 0,
                               const std::string& rack_label = kCliqueLabel);

}  // namespace gpuqual
