#pragma once
// The baseline a record is judged against, resolved the same way by every command that judges
// one record (compare, report): `--baseline auto` looks in the baselines directory for the
// record's class (none: a note on stderr and null, so the verdict is inconclusive); a file is
// loaded as given and must be for the record's class (InputError otherwise).
#include <memory>
#include <string>

#include "core/baseline.hpp"

namespace gpuqual {

std::unique_ptr<Baseline> load_record_baseline(const std::string& spec, const std::string& baselines_dir_flag,
                                               const std::string& slug);

}  // namespace gpuqual
