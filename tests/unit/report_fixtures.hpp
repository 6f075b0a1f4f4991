#pragma once
// The synthetic fixture records (tests/data/records) judged the way `gpuqual compare
// --baseline auto --baselines-dir tests/data/baselines` judges them, for the compare, report
// and golden tests.
#include <string>
#include <vector>

#include "core/baseline/baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/record/record_io.hpp"

namespace gpuqual::testing {

inline const std::vector<std::string>& fixture_names() {
  static const std::vector<std::string> names = {
      "synthetic-healthy",        "synthetic-slow-gpu",      "synthetic-ecc-uncorrected",
      "synthetic-missing-metric", "synthetic-errored-check", "synthetic-unknown-class",
      "synthetic-warn",
  };
  return names;
}

inline Verdict judge_fixture(const std::string& name, bool strict = false) {
  const std::string data = GPUQUAL_TEST_DATA;
  const RunRecord record = read_record(data + "/records/" + name + ".json");
  const std::string path = resolve_baseline("auto", record.hardware_class.slug, data + "/baselines");
  if (path.empty()) return compare_record(record, nullptr, {strict});
  Baseline baseline = load_baseline(path);
  // Reports name the baseline file: keep it independent of where the checkout lives.
  baseline.origin = "tests/data/baselines/" + baseline.hardware_class + ".yaml";
  return compare_record(record, &baseline, {strict});
}

}  // namespace gpuqual::testing
