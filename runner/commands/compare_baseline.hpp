#pragma once
// The baseline a record is judged against, resolved the same way by every command that judges
// one record (compare, report, run): `--baseline auto` looks in the baselines directory for the
// record's class (none: a note and null, so the verdict is inconclusive); a file is loaded as
// given; either way it must be for the record's class (InputError otherwise).
#include <memory>
#include <string>

#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"

namespace gpuqual {

// Judging an H100 against an H200 baseline would pass or fail for the wrong reason.
void require_baseline_class(const Baseline& baseline, const std::string& slug);

// compare and report: auto or a file, the note on stderr, the class checked.
std::unique_ptr<Baseline> load_record_baseline(const std::string& spec, const std::string& baselines_dir_flag,
                                               const std::string& slug);

}  // namespace gpuqual
