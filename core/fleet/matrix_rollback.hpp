#pragma once
// `gpuqual matrix rollback --class C`: the tested rollback path, i.e. the newest known-good row
// of the class (by last seen) whose target checks known-good, as a `gpuqual.target/v1` file for
// `--target` and the pipeline. Every component of the row is pinned (a VBIOS that differs among
// the class's GPUs by the prefix its versions share); a row whose target would still match a
// known-bad row of the class (`matrix check` would say known-bad) is passed over for the next.
#include <optional>
#include <string>

#include "core/fleet/matrix.hpp"
#include "core/verdict/target.hpp"

namespace gpuqual {

struct Rollback {
  const MatrixRow* row = nullptr;
  Target target;                     // the row's stack as exact rules under classes.<C>
  std::vector<std::string> comment;  // where it came from, what was left out
};

// nullopt when the class has no known-good row whose target checks known-good.
std::optional<Rollback> rollback_for(const Matrix& m, const std::string& hardware_class);

}  // namespace gpuqual
