#pragma once
// What `gpuqual revalidate` knows of each node: its run records (and verdict files) judged the
// way `plan --verdicts` judges them (runner/commands/plan_inputs.hpp), three times: as they are,
// with the Nodes (stale?) and with --max-age as well (expired?). The difference between the
// three says why a node that passed is due again. Unreadable or malformed input: InputError.
#include <memory>
#include <string>
#include <vector>

#include "core/fleet/revalidate.hpp"
#include "core/verdict/record_age.hpp"

namespace gpuqual {

struct StandingSources {
  std::vector<std::string> records;           // run records, verdict files, or directories of them
  std::string baselines_dir;                  // --baselines-dir ("" the default search)
  std::string max_age;                        // --max-age, e.g. "7d" (required by the command)
  int consecutive = 1;                        // --consecutive
  std::shared_ptr<const CurrentNodes> nodes;  // the Nodes as they are now (from --nodes)
};

Standings read_standings(const StandingSources& s);

}  // namespace gpuqual
