#include "runner/commands/compare_baseline.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"

namespace gpuqual {

std::unique_ptr<Baseline> find_class_baseline(const std::string& baselines_dir_flag, const std::string& slug,
                                              std::string& missing) {
  const std::string dir = baselines_dir(baselines_dir_flag);
  const std::string path = resolve_class_baseline(slug, dir);
  if (path.empty()) {
    missing = fmt::format("no baseline {}/{}.yaml (nor datasheet floors in {}/floors/) for class {}", dir, slug, dir, slug);
    return nullptr;
  }
  return std::make_unique<Baseline>(load_baseline(path));
}

void require_baseline_class(const Baseline& baseline, const std::string& slug) {
  if (baseline.hardware_class != slug) {
    throw InputError(baseline.origin, "$.hardware_class",
                     fmt::format("baseline is for class {} but the record is class {} (use --class to override)",
                                 baseline.hardware_class, slug));
  }
}

std::unique_ptr<Baseline> load_record_baseline(const std::string& spec, const std::string& baselines_dir_flag,
                                               const std::string& slug) {
  std::unique_ptr<Baseline> baseline;
  if (spec == "auto") {
    std::string missing;
    baseline = find_class_baseline(baselines_dir_flag, slug, missing);
    if (!baseline) print_line(stderr, "gpuqual: note: " + missing + " (the verdict is inconclusive)");
  } else {
    baseline = std::make_unique<Baseline>(load_baseline(spec));
  }
  if (baseline) require_baseline_class(*baseline, slug);
  return baseline;
}

}  // namespace gpuqual
