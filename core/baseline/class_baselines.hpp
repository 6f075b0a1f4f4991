#pragma once
// Where gate finds the baseline of each hardware class in its pool: `--baseline auto` (one file
// per class in the baselines directory, loaded the first time a record of that class comes),
// or `--baseline FILE` given once per class. Thread-safe: gate judges records on several threads.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/baseline/baseline.hpp"

namespace gpuqual {

// The one lookup of a class's baseline (compare, diff, report, run, gate, matrix, plan): in the
// baselines directory `dir`, <dir>/<slug>.yaml, else the datasheet floors <dir>/floors/<slug>.yaml
// (resolve_class_baseline), loaded (a bad file throws InputError, exit 3). Null when there is
// neither, with `missing` (when given) set to the sentence that says where none was found.
std::unique_ptr<Baseline> find_class_baseline(const std::string& slug, const std::string& dir,
                                              std::string* missing = nullptr);

class BaselineSource {
 public:
  virtual ~BaselineSource() = default;
  // The baseline for `slug`, or null when the class has none (its nodes are inconclusive).
  // Pointers stay valid for the source's lifetime. A baseline file that exists but is bad throws
  // InputError (exit 3).
  virtual const Baseline* for_class(const std::string& slug) = 0;
};

// `--baseline auto`: find_class_baseline, each class looked up once.
class AutoBaselines : public BaselineSource {
 public:
  explicit AutoBaselines(std::string dir) : dir_(std::move(dir)) {}
  const Baseline* for_class(const std::string& slug) override;

 private:
  std::string dir_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Baseline>> cache_;  // null: looked up, none found
};

// `--baseline FILE`...: each file serves the class it declares; two files for one class is an
// input error naming both.
class FixedBaselines : public BaselineSource {
 public:
  static FixedBaselines from_files(const std::vector<std::string>& paths);
  explicit FixedBaselines(std::vector<Baseline> baselines);
  const Baseline* for_class(const std::string& slug) override;

 private:
  std::vector<std::unique_ptr<Baseline>> owned_;
  std::map<std::string, const Baseline*> by_class_;
};

}  // namespace gpuqual
