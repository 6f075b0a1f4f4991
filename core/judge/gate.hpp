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
// Several records of one node (same Kubernetes node name, else hostname) are its history
// (core/verdict/record_history.hpp): the newest by boot and uptime counts; where the records cannot
// prove which is newest (two boots, a clock that may have been reset) the worst of those that
// may be counts. --consecutive N: the node qualifies only after N passing runs in a row since
// its last non-passing one; runs that alternate between pass and fail make it flaky (warn).
// Racks (--rack-label, core/judge/gate_racks.hpp): the nodes of one multi-node NVLink domain are
// judged whole; a failed node fails its rack's other nodes, and a rack on two drivers fails.
// --max-age and --node-file withhold the qualification of a record too old or stale
// (core/verdict/record_age.hpp). Nodes with GPU UUIDs in common are one machine: one toward
// --expect-nodes, named in the reasons and the summary.
//
// Memory: a node keeps its trimmed compare verdict (rows that did not pass, and its worst few)
// and one value per baseline metric; the record itself is dropped once judged.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/record/rack.hpp"
#include "core/record/record.hpp"
#include "core/verdict/record_age.hpp"
#include "core/verdict/target.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct GateOptions {
  int max_failed = 0;                    // nodes that may fail before the pool fails
  std::optional<double> max_failed_pct;  // instead: percent of the pool's nodes (0..100)
  std::optional<int> expect_nodes;       // fewer distinct nodes → inconclusive
  double pool_allowed_drop = 0.02;       // fraction; capped by each metric's tolerance
  double confidence = 0.95;              // two-sided coverage of the pool-median interval
  bool strict = false;                   // warn counts as fail, for nodes and for the pool
  std::optional<int> expect_gpus{};      // --expect-gpus: every node must have this many GPUs
  const Target* target = nullptr;        // --target: nodes off this stack fail (core/verdict/target.hpp)
  Freshness freshness{};                 // --max-age, --node-file (core/verdict/record_age.hpp)
  int consecutive = 1;                   // --consecutive: passing runs in a row a node needs
  // --rack-label: the record's node label that names its rack (core/record/rack.hpp), judged
  // whole (core/judge/gate_racks.hpp); "" = no racks.
  std::string rack_label = kCliqueLabel;
  // Where the baselines of the records' other units are found (CompareOptions::unit_baselines);
  // gate_records sets its own.
  BaselineSource* unit_baselines = nullptr;
};

// What the pool keeps of one judged record.
struct NodeSummary {
  std::string node;  // identity: Kubernetes node name, else hostname
  std::string path;  // the record file
  std::string started_at;
  std::optional<std::int64_t> started_ms;  // parsed started_at, for "newest counts"
  std::optional<std::int64_t> ended_ms;    // parsed ended_at: runs that overlap are one run
  std::size_t order = 0;                   // position on the command line (ties: later wins)
  std::string boot_id;                     // record.node: where the run sits in the node's history
  std::optional<double> uptime_s;
  bool complete = true;                 // record.complete: of two files of one run, the complete one wins
  std::vector<std::uint64_t> gpu_keys;  // hashes of the GPU UUIDs: nodes that share one are one machine
  std::string hardware_class;
  std::string rack;        // rack_of(the record's node labels, GateOptions::rack_label); "" = none
  std::string class_note;  // class_override_note: the pool says it (docs/hardware-class.md)
  Verdict verdict;         // the compare verdict, trimmed (see trim_node_verdict)
  // One value per metric of the class baseline (same order as Baseline::metrics): the median over
  // the node's GPUs of each GPU's median, or the node-scope median. NaN: not measured.
  std::vector<double> pool_values;
  bool unreadable = false;  // see unreadable_node
  // Each recorded component version (core/verdict/target.hpp record_components), for the pool's spread.
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
void trim_node_verdict(Verdict& v, std::size_t keep_rows = 20, std::size_t worst = 3,
                       std::size_t keep_reasons = 10);

class GatePool {
 public:
  explicit GatePool(GateOptions options) : options_(options) {}
  // `baseline` is the class baseline `node` was judged against (null: none); it must outlive
  // the pool. Add nodes in command-line order.
  void add(NodeSummary node, const Baseline* baseline);
  // Room for `nodes` summaries: the vector's doubling would otherwise hold two copies at once.
  void reserve(std::size_t nodes) { nodes_.reserve(nodes); }
  // A reason that decides nothing (e.g. "run R is in two files"), listed with the others.
  void note(std::string text) { notes_.push_back(std::move(text)); }
  Verdict finish();

 private:
  // Picks the record that counts among a node's records and applies its history (--consecutive,
  // flaky, an order the records cannot prove).
  void resolve_history(std::size_t index, std::vector<NodeSummary>& more);
  void resolve_histories();
  // The machines behind the nodes (shared GPU UUIDs), their number, and a note per shared one.
  std::size_t count_machines(std::vector<std::string>& notes, std::vector<std::string>& shared) const;

  GateOptions options_;
  std::vector<NodeSummary> nodes_;
  std::map<std::size_t, std::vector<NodeSummary>> more_;  // a node's other records, by index in nodes_
  std::vector<std::string> notes_;
  std::vector<std::string> flaky_;
  std::size_t ignored_records_ = 0;  // records of a node that did not count (its older runs)
  std::map<std::string, std::size_t> by_identity_;
  std::map<std::string, const Baseline*> class_baselines_;
  std::vector<std::string> duplicates_;
};

}  // namespace gpuqual
