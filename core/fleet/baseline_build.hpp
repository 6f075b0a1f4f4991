#pragma once
// `gpuqual baseline build RECORD... --output FILE [--class CLASS]`: a baseline from healthy run
// records of one hardware class, with robust statistics so one slow node does not drag the
// expectation down.
//
// Left out, and listed: records that did not complete, with a failed check, with a fail-severity
// finding or one beyond the baseline's hard limits (kDefaultFindingLimits), of another class;
// and partial records (docs/baselines.md): fewer GPUs than the node's own sources or the other
// records of the class, a check of health/gemm/hbm/pcie or of the record's suite missing,
// skipped or errored, a core check that reported nothing for one of the GPUs, a check most
// records have. A partial record never weakens the baseline: gpu_count is the class's count and
// every check all included records measured is `required` (health, gemm, hbm, pcie always, on
// every GPU).
// Per metric (name, per-GPU or node scope):
//   expected   median over nodes of each node's median (over its runs and GPUs), 5 digits
//   noise_cv   1.4826 * MAD of every GPU-level value (one per run and GPU), over expected
//   tolerance  max(floor, k * noise_cv), rounded up to 0.1 % (defaults: floor 3 %, k = 4)
//   required   measured in every included run
// Nodes whose own median is worse than expected by more than the tolerance are listed as
// outliers: they do not move the expectation, and they would fail against it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/baseline/baseline.hpp"
#include "core/record/record.hpp"

namespace gpuqual {

struct BaselineBuildOptions {
  std::string hardware_class;     // --class; empty: the one class every record shares
  double tolerance_floor = 0.03;  // suggested tolerance is never below this
  double spread_k = 4.0;          // tolerance = max(floor, spread_k * noise_cv)
  std::string created;            // provenance date (RFC 3339); empty: today, UTC
};

struct ExcludedRecord {
  std::string path;
  std::string node;
  std::string reason;
};

struct BaselineBuildResult {
  Baseline baseline;
  std::vector<std::string> included;     // record paths the numbers come from
  std::vector<ExcludedRecord> excluded;  // left out, with the reason
  std::vector<std::string> outliers;     // "node-c: gemm.bf16.tflops 7.9 % below expected ..."
  std::vector<std::string> notes;        // anything else a reviewer should know
};

// A record of a MIG node (docs/mig.md, "Classes and floors") is of several classes: its whole
// GPUs' class (when one GPU is not in MIG mode) and `<class>-mig-<profile>` per profile of its
// MIG devices; --class picks one, and a slice class is built from its MIG devices' metrics.
//
// Streams records: add() keeps per (metric, node) values only, never the record.
class BaselineBuilder {
 public:
  explicit BaselineBuilder(BaselineBuildOptions options) : options_(std::move(options)) {}
  void add(const RunRecord& record, const std::string& path);
  // Throws InputError when the records are of several classes and no --class picks one.
  // A result with no metrics means no healthy record was left.
  BaselineBuildResult finish();

 private:
  struct MetricValues {
    std::string unit;
    Direction direction = Direction::higher;
    bool per_gpu = true;
    std::string first_path;                              // where unit/direction were first seen
    std::size_t runs = 0;                                // runs that measured it
    std::map<std::string, std::vector<double>> by_node;  // node → GPU-level medians, all runs
  };
  // What one record that passed add() contributes; finish() leaves out the partial ones first.
  struct RecordValues {
    std::string path, node, started_at;
    int gpus = 0;
    std::vector<std::string> checks;                         // measured: pass, warn or an acceptable skip
    std::vector<std::string> every_gpu;                      // of those, the ones that reported each GPU
    std::vector<std::pair<std::string, std::string>> stack;  // (key, version)
    std::vector<std::pair<std::string, double>> values;      // (metric key, GPU-level median)
  };
  struct ClassData {
    std::vector<RecordValues> records;
    std::vector<std::string> included;
    std::map<std::string, MetricValues> metrics;            // key: name + (per GPU ? "" : " (node)")
    std::vector<std::string> metric_order;                  // first-seen order, for a stable file
    std::map<std::string, std::vector<std::string>> stack;  // key → versions seen, in order
    std::vector<std::string> nodes;
    std::string first_started, last_started;
    std::optional<std::int64_t> first_ms, last_ms;
  };
  void add_to_class(const RunRecord& r, const std::string& path, const std::string& node,
                    const std::string& cls);
  static void add_metric_values(const RunRecord& r, const std::string& path, const std::string& cls,
                                ClassData& d, RecordValues& rv);
  void leave_out_partial(ClassData& d, std::vector<ExcludedRecord>& excluded) const;
  void take_record(ClassData& d, const RecordValues& rv) const;
  static void require_checks(const ClassData& d, Baseline& b);
  static void fill_provenance(const ClassData& d, Provenance& p);
  std::optional<MetricExpectation> expect_metric(const std::string& key, const MetricValues& mv,
                                                 std::size_t included, BaselineBuildResult& out) const;
  BaselineBuildOptions options_;
  std::map<std::string, ClassData> classes_;
  std::vector<ExcludedRecord> excluded_;
  std::vector<std::string> notes_;
};

}  // namespace gpuqual
