#include "runner/commands/diff_inputs.hpp"

#include <cstdio>

#include "runner/commands/compare_baseline.hpp"

namespace gpuqual {

DiffBaselines load_diff_baselines(const std::string& spec, const std::string& baselines_dir_flag,
                                  const std::string& slug) {
  DiffBaselines b;
  b.units = std::make_unique<AutoBaselines>(baselines_dir(baselines_dir_flag));
  if (spec.empty() || spec == "auto") {
    b.after = find_class_baseline(slug, baselines_dir(baselines_dir_flag), &b.missing);
  } else {
    b.after = std::make_unique<Baseline>(load_baseline(spec));
  }
  if (!b.after) return b;
  require_baseline_class(*b.after, slug);
  b.lend_tolerances = !spec.empty() && b.after->kind == BaselineKind::measured;
  if (!spec.empty() && b.after->kind == BaselineKind::floor) {
    std::fprintf(stderr,
                 "gpuqual: note: %s is datasheet floors: it judges the after-record, but lends no per-metric "
                 "tolerances (every metric gets --allowed-drop)\n",
                 b.after->origin.c_str());
  }
  return b;
}

void apply_diff_baselines(const DiffBaselines& b, DiffOptions& o) {
  o.after_baseline = b.after.get();
  o.after_baseline_missing = b.missing;
  o.tolerances = b.lend_tolerances ? b.after.get() : nullptr;
  o.unit_baselines = b.units.get();
}

}  // namespace gpuqual
