#include "runner/commands/compare_baseline.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"

namespace gpuqual {

void require_baseline_class(const Baseline& baseline, const std::string& slug) {
  if (baseline.hardware_class != slug) {
    throw InputError(
        baseline.origin, "$.hardware_class",
        fmt::format("baseline is for class {} but the record is class {} (use --class to override)",
                    baseline.hardware_class, slug));
  }
}

std::unique_ptr<Baseline> load_record_baseline(const std::string& spec, const std::string& baselines_dir_flag,
                                               const std::string& slug) {
  std::unique_ptr<Baseline> baseline;
  if (spec == "auto") {
    std::string missing;
    baseline = find_class_baseline(slug, baselines_dir(baselines_dir_flag), &missing);
    if (!baseline) print_line(stderr, "gpuqual: note: " + missing + " (the verdict is inconclusive)");
  } else {
    baseline = std::make_unique<Baseline>(load_baseline(spec));
  }
  if (baseline) require_baseline_class(*baseline, slug);
  return baseline;
}

}  // namespace gpuqual
