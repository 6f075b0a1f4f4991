#pragma once
// The baseline (`gpuqual.baseline/v1`, YAML): what a healthy node of one hardware class
// measures, how far a metric may drop before the node fails, and hard limits for findings.
// Format for people who edit one: baselines/README.md.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

inline constexpr const char* kBaselineSchema = "gpuqual.baseline/v1";

struct MetricExpectation {
  std::string name;  // dotted metric name, as in records
  std::string unit;  // must match the record's unit
  Direction direction = Direction::higher;
  double expected = 0;                   // the healthy value (median over healthy nodes)
  double tolerance = 0.05;               // allowed relative drop before fail (0.05 = 5 %)
  std::optional<double> warn_tolerance;  // relative drop that warns (below tolerance)
  std::optional<double> noise_cv;        // run-to-run CV seen when the baseline was built
  bool per_gpu = true;                   // true: judged on every GPU; false: node-scope metric
  bool required = true;                  // missing from the record → inconclusive
};

// A hard limit on findings whose code matches `code` (exact, or a prefix ending in ".*").
struct FindingLimit {
  std::string code;
  std::optional<double> max_value;  // finding value above this fails; empty: any occurrence fails
  Status status = Status::fail;     // fail, or warn for soft limits
  std::string action;               // what the operator should do
};

// What the baseline says about a check as a whole (the `checks:` map, keyed by check name).
// `required` and `every_gpu` say what a class must measure (docs/baselines.md, "What a class must
// measure"): the floors and built baselines require health, gemm, hbm and pcie on every GPU.
struct CheckExpectation {
  bool optional = false;  // a skip of this check does not make the verdict inconclusive
  bool required = false;  // the record must hold it, not skipped: else inconclusive
  // On every GPU of the record: a metric of this check judged against the baseline (when the
  // baseline names metrics of the check), else a status of the check for that GPU.
  bool every_gpu = false;
};

struct Provenance {
  std::string source;  // "built by gpuqual baseline build", "hand-written", ...
  int runs = 0;
  std::vector<std::string> nodes;
  std::map<std::string, std::string> stack;  // driver, cuda, nccl, ... as seen in the runs
  std::string created;                       // RFC 3339 date
  std::string date_range;                    // first..last run
  std::string notes;
};

// What a baseline's numbers are. `measured`: healthy nodes' values (built by `gpuqual baseline
// build` or written from measurements): catches slow. `floor`: a fraction of the datasheet's dense
// peak (baselines/floors/), shipped so a node of a common class is judged out of the box: catches
// broken (half bandwidth, a downgraded link, a GEMM at a third), not slow.
enum class BaselineKind { measured, floor };

struct Baseline {
  std::string schema = kBaselineSchema;
  std::string hardware_class;                  // slug, e.g. h200-sxm-141gb
  BaselineKind kind = BaselineKind::measured;  // YAML `kind:`, default measured
  // The GPUs a node of this class has: fewer in a record is `gpu.missing` (fail); node-scope
  // metrics (NCCL) hold for this count. One source of the expected count among several
  // (core/verdict/expected_gpus.hpp): the largest wins.
  std::optional<int> gpu_count;
  // `gpu_count: node`: the class has no one count (an H200 node has 4 or 8); the node's own
  // sources say it, and none at all is inconclusive. Written by the floors; absent means the same.
  bool gpu_count_from_node = false;
  Provenance provenance;
  std::vector<MetricExpectation> metrics;
  std::vector<FindingLimit> finding_limits;
  std::map<std::string, CheckExpectation> checks;
  std::string origin;  // file it was loaded from (for reports)

  bool check_optional(const std::string& check) const {
    auto it = checks.find(check);
    return it != checks.end() && it->second.optional;
  }
  bool check_required(const std::string& check) const {
    auto it = checks.find(check);
    return it != checks.end() && it->second.required;
  }
};

// Strict loader: InputError naming the file, the key path and line, and the problem.
Baseline load_baseline(const std::string& path);
Baseline parse_baseline_yaml(const std::string& text, const std::string& origin);
// Commented YAML, loadable by parse_baseline_yaml (used by `gpuqual baseline build`).
std::string baseline_to_yaml(const Baseline& baseline);

// Where `--baseline auto` looks: --baselines-dir if given, else $GPUQUAL_BASELINES_DIR, else
// the installed share/gpuqual/baselines next to the binary, else the source tree's baselines/.
std::string baselines_dir(const std::string& flag_value);
// "auto" → <dir>/<slug>.yaml when it exists, else empty (unknown class: inconclusive);
// anything else is a path used as given. Measured baselines only (diff's tolerances, NCCL).
std::string resolve_baseline(const std::string& spec, const std::string& slug, const std::string& dir);
// The baseline one node is judged against with `--baseline auto` (compare, run, report, gate):
// <dir>/<slug>.yaml, a measured or fleet baseline, always wins; else the datasheet floors
// <dir>/floors/<slug>.yaml; else empty.
std::string resolve_class_baseline(const std::string& slug, const std::string& dir);

// The note every verdict judged against floors carries (`kind: floor`).
inline constexpr const char* kFloorNote =
    "judged against datasheet floors: catches broken, not slow; build a fleet baseline with `gpuqual "
    "baseline build`";

}  // namespace gpuqual
