#pragma once
// What `gpuqual diff` and `gpuqual report --before` judge a before/after pair with
// (docs/diff.md): the after-record's own baseline, resolved as `compare --baseline` resolves it,
// and the per-metric tolerances it lends (a measured baseline only; floors lend none).
#include <memory>
#include <string>

#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/judge/diff.hpp"

namespace gpuqual {

struct DiffBaselines {
  std::unique_ptr<Baseline> after;  // compare's baseline for the after-record; null: see `missing`
  std::string missing;              // why there is none (the diff is then inconclusive)
  bool lend_tolerances = false;     // `after` is measured and was asked for with --baseline
  // The baselines directory, where compare of the after-record finds its MIG slices' classes.
  std::unique_ptr<AutoBaselines> units;
};

// `spec`: "" (no --baseline: the class's baseline judges the after-record, --allowed-drop every
// metric), "auto" or a file (its tolerances too, when it is measured). InputError for a
// baseline of another class.
DiffBaselines load_diff_baselines(const std::string& spec, const std::string& baselines_dir_flag,
                                  const std::string& slug);

// Points `o` at the baselines (which must outlive it).
void apply_diff_baselines(const DiffBaselines& b, DiffOptions& o);

}  // namespace gpuqual
