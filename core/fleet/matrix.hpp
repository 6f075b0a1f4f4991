#pragma once
// The known-good compatibility matrix (`gpuqual.matrix/v1`, docs/matrix.md): the fleet's own
// records, judged, grouped by hardware class and stack combination. Per row: the class, every
// stack component, the validated workload images, the nodes and runs that passed and failed,
// first and last seen, and the row's state:
//
// known-bad    a failure attributable to the stack: a node failed on this stack after it had
//              passed on another stack of the same class (the node was fine; the stack changed)
// known-good   passed on >= min_nodes distinct nodes and failed on none; a node of a rack (the
//              nodes of one multi-node NVLink domain, core/record/rack.hpp) counts only when every
//              node of its rack the input has seen passed on this stack: a rack is judged whole
// mixed        failed on some node, but no failing node is known to have passed elsewhere before:
//              the failure may be the node's own hardware
// unqualified  failed on none, and passed on fewer than min_nodes nodes (or only inconclusive runs)
//
// A node is a machine: records whose GPU UUIDs overlap are one machine whatever their node
// names (a box re-registered under a new name counts once), shown as "node-a (also node-b)".
// A run with `complete: false` never passes (inconclusive; its failure still counts). The same
// run (run_id) read twice counts once: the complete record, then the worse outcome, wins.
//
// Deterministic: rows, nodes and images are sorted, every choice has a defined order, and
// nothing depends on the clock, the input order or the number of threads, so the same set of
// records gives the same bytes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/fleet/matrix_stack.hpp"
#include "core/record/rack.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

inline constexpr const char* kMatrixSchema = "gpuqual.matrix/v1";
inline constexpr int kDefaultMinNodes = 2;

enum class MatrixState { known_good, known_bad, mixed, unqualified };
std::string_view to_string(MatrixState s);
std::optional<MatrixState> parse_matrix_state(std::string_view text);

struct MatrixRow {
  std::string hardware_class;
  std::string gpu_product;                // "NVIDIA H200"
  std::string compute_capability;         // "9.0": what the driver-branch rules judge
  StackComponents stack;                  // core/fleet/matrix_stack.hpp, in its order
  std::vector<std::string> images;        // validated workload images, sorted
  std::vector<std::string> nodes_passed;  // distinct, sorted
  std::vector<std::string> nodes_failed;
  int runs_passed = 0;  // outcome pass or warn
  int runs_failed = 0;
  int runs_inconclusive = 0;
  std::string first_seen;  // started_at of the earliest run, as recorded
  std::string last_seen;
  MatrixState state = MatrixState::unqualified;
  std::string why;  // one sentence: what decided the state
  // The value of `name` in this row's stack, or null.
  const std::string* component(const std::string& name) const;
};

struct Matrix {
  std::string schema = kMatrixSchema;
  int min_nodes = kDefaultMinNodes;
  std::size_t records = 0;      // records judged
  std::size_t unreadable = 0;   // record files that could not be read (left out)
  std::vector<MatrixRow> rows;  // sorted by class, then stack
  std::string origin;           // the file it was loaded from
};

// What the builder keeps of one judged record (the record itself is dropped).
struct MatrixObservation {
  std::string hardware_class;
  std::string gpu_product;
  std::string compute_capability;
  StackComponents stack;
  std::vector<std::string> images;
  std::string node;
  std::string run_id;
  std::string started_at;
  Outcome outcome = Outcome::inconclusive;
  bool complete = true;                 // the record's `complete`
  std::vector<std::uint64_t> gpu_keys;  // hashes of its distinct GPU UUIDs: the machine's identity
  std::string rack;                     // rack_of(its node labels, the rack label); "" = none
};
// `rack_label`: the node label that names racks ("" = no racks).
MatrixObservation observe_record(const RunRecord& record, Outcome outcome,
                                 const std::string& rack_label = kCliqueLabel);

// The racks a build has seen: each machine's rack and each rack's machines (by interned id).
struct MatrixRackIndex {
  std::map<std::uint32_t, std::uint32_t> rack_of;            // machine → rack
  std::map<std::uint32_t, std::set<std::uint32_t>> members;  // rack → machines
};

class MatrixBuilder {
 public:
  explicit MatrixBuilder(int min_nodes = kDefaultMinNodes) : min_nodes_(min_nodes) {}
  // In any order: the same set of observations gives the same matrix.
  void add(MatrixObservation o);
  void add_unreadable() { ++unreadable_; }
  Matrix finish();

 private:
  using Id = std::uint32_t;
  struct Event {
    Id row = 0;
    Id name = 0;             // the node name
    Id identity = 0;         // union-find element: its first GPU UUID, else its node name
    bool identified = true;  // its record names a GPU: the machine can be told from another
    std::optional<std::int64_t> started_ms;
    std::string started_at;
    Outcome outcome = Outcome::inconclusive;
    bool complete = true;
    std::vector<Id> images;
    std::optional<Id> rack;  // interned in racks_
  };
  struct Acc {
    std::string key;  // class + stack: the row's identity and its sort order's tie-break
    std::string hardware_class, gpu_product, compute_capability;
    StackComponents stack;
  };
  struct Interned {
    std::unordered_map<std::string, Id> index;
    std::vector<std::string> names;
    Id operator()(const std::string& s);
  };
  // Per machine and row: when it first passed there and last failed there.
  struct Seen {
    std::optional<std::int64_t> earliest_pass, latest_fail;
  };
  bool replaces(const Event& challenger, const Event& held) const;
  std::map<Id, std::map<Id, Id>> blame_stacks(const std::map<std::pair<Id, Id>, Seen>& seen) const;
  Id machine_of(Id identity);
  MatrixRackIndex index_racks();
  void unite(Id a, Id b);

  int min_nodes_;
  std::size_t unreadable_ = 0;
  std::unordered_map<std::string, Id> row_index_;
  std::vector<Acc> rows_;
  Interned names_, images_, racks_;
  // Union-find over identities: a GPU (by UUID hash) or, for a record without GPUs, a node name.
  // Hashes, not the UUIDs: 8 GPUs x 100,000 records of strings would double the build's memory.
  std::unordered_map<std::uint64_t, Id> gpu_identity_;
  std::unordered_map<Id, Id> node_identity_;  // node name → identity
  std::vector<Id> parent_;
  Id gpu_identity(std::uint64_t key);
  std::unordered_map<std::string, std::size_t> run_index_;  // run_id → its event
  std::vector<Event> events_;
};

}  // namespace gpuqual
