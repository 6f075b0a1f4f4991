#include "runner/compare_baseline.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/input_error.hpp"

namespace gpuqual {

std::unique_ptr<Baseline> load_record_baseline(const std::string& spec, const std::string& baselines_dir_flag,
                                               const std::string& slug) {
  std::unique_ptr<Baseline> baseline;
  if (spec == "auto") {
    const std::string dir = baselines_dir(baselines_dir_flag);
    const std::string path = resolve_baseline("auto", slug, dir);
    if (path.empty()) {
      std::fprintf(stderr,
                   "gpuqual: note: no baseline %s/%s.yaml for class %s (the verdict is inconclusive)\n",
                   dir.c_str(), slug.c_str(), slug.c_str());
    } else {
      baseline = std::make_unique<Baseline>(load_baseline(path));
    }
  } else {
    baseline = std::make_unique<Baseline>(load_baseline(spec));
  }
  // Judging an H100 against an H200 baseline would pass or fail for the wrong reason.
  if (baseline && baseline->hardware_class != slug) {
    throw InputError(
        baseline->origin, "$.hardware_class",
        fmt::format("baseline is for class {} but the record is class {} (use --class to override)",
                    baseline->hardware_class, slug));
  }
  return baseline;
}

}  // namespace gpuqual
