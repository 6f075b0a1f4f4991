#pragma once
// `gpuqual gate RECORD...`: may the rollout widen past the canary pool? Each node is judged as
// `compare` judges it, against the baseline of its own hardware class; then the pool:
//
// fail          more nodes failed than --max-failed allows (N, or P % of the nodes), or the pool
//               median of a metric is worse than the baseline by more than the pool's allowed
//               drop with confidence (median interval, noise_model.hpp) even though every node
//               passed alone. The pool's allowed drop is min(metric tolerance, --pool-allowed-drop).
// inconclusive  fewer distinct nodes than --expect-nodes, a node that could not be judged (no
//               baseline for its class, a check errored, a required metric missing), a record
//               that could not be read (which also counts toward --max-failed), or, without
//               --target, nodes on different driver (or CUDA driver) versions: a canary pool that
//               is not on one stack has not qualified it (with --target the nodes off it fail).
// warn          a node warned, a failure within --max-failed, or a pool drop not confirmed.
//
// Duplicate records of one node (same Kubernetes node name, else hostname): the newest by
// started_at counts, the others are listed in the reasons.
//
// Memory: a node keeps its trimmed compare verdict (rows that did not pass, and its worst few)
// and one value per baseline metric; the record itself is dropped once judged.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/baseline.hpp"
#include "core/compare.hpp"
#include "core/record.hpp"
#include "core/target.hpp"
#include "core/verdict.hpp"

namespace gpuqual {

struct GateOptions {
  int max_failed = 0;                    // nodes that may fail before the pool fails
  std::optional<double> max_failed_pct;  // instead: percent of the pool's nodes (0..100)
  std::optional<int> expect_nodes;       // fewer distinct nodes → inconclusive
  double pool_allowed_drop = 0.02;       // fraction; capped by each metric's tolerance
  double confidence = 0.95;              // two-sided coverage of the pool-median interval
  bool strict = false;                   // warn counts as fail, for nodes and for the pool
  std::optional<int> expect_gpus{};      // --expect-gpus: every node must have this many GPUs
  const Target* target = nullptr;        // --target: nodes off this stack fail (core/target.hpp)
};

// What the pool keeps of one judged record.
struct NodeSummary {
  std::string node;                      // identity: Kubernetes node name, else hostname
  std::string path;                      // the record file
  std::string started_at;
  std::optional<std::int64_t> started_ms;  // parsed started_at, for "newest counts"
  std::size_t order = 0;                 // position on the command line (ties: later wins)
  std::string hardware_class;
  Verdict verdict;                       // the compare verdict, trimmed (see trim_node_verdict)
  // One value per metric of the class baseline (same order as Baseline::metrics): the median over
  // the node's GPUs of each GPU's median, or the node-scope median. NaN: not measured.
  std::vector<double> pool_values;
  bool unreadable = false;               // see unreadable_node
  // Each recorded component version (core/target.hpp record_components), for the pool's spread.
  std::map<std::string, std::vector<std::string>> components;
};

// The check name of the one row an unreadable record's node has (status error, the reader's
// message: file, JSON path or line and column, problem).
inline constexpr const char* kUnreadableRecordCheck = "record";

// A record that could not be read (malformed, truncated, not a record): its node is `error`,
// counts toward --max-failed as a node that did not qualify, and keeps the pool from passing.
// `problem` is the InputError's message. Its identity is the file (nothing else names it).
NodeSummary unreadable_node(std::string path, const std::string& problem, std::size_t order);

// Judges one record for the pool. `baseline` may be null (no baseline for the class).
NodeSummary summarize_node(const RunRecord& record, const Baseline* baseline, const GateOptions& options,
                           std::string path, std::size_t order);

// Keeps what a pool report needs of a node's verdict: every row that did not pass (at most
// `keep_rows` of each kind) plus the `worst` judged metric rows by drop relative to the allowed
// drop, and at most `keep_reasons` reasons.
void trim_node_verdict(Verdict& v, std::size_t keep_rows = 20, std::size_t worst = 3, std::size_t keep_reasons = 10);

class GatePool {
 public:
  explicit GatePool(GateOptions options) : options_(options) {}
  // `baseline` is the class baseline `node` was judged against (null: none); it must outlive
  // the pool. Add nodes in command-line order.
  void add(NodeSummary node, const Baseline* baseline);
  // Room for `nodes` summaries: the vector's doubling would otherwise hold two copies at once.
  void reserve(std::size_t nodes) { nodes_.reserve(nodes); }
  Verdict finish();

 private:
  GateOptions options_;
  std::vector<NodeSummary> nodes_;
  std::map<std::string, std::size_t> by_identity_;
  std::map<std::string, const Baseline*> class_baselines_;
  std::vector<std::string> duplicates_;
};

// RFC 3339 ("2026-11-30T12:00:00Z", fractional seconds and ±hh:mm offsets too) → Unix ms.
std::optional<std::int64_t> parse_rfc3339_ms(const std::string& text);

}  // namespace gpuqual
