#pragma once
// The known-good compatibility matrix (`gpuqual.matrix/v1`, docs/matrix.md): the fleet's own
// records, judged, grouped by hardware class and stack combination. Per row: the class, every
// stack component, the validated workload images, the nodes and runs that passed and failed,
// first and last seen, and the row's state:
//
// known-bad    a failure attributable to the stack: a node failed on this stack after it had
//              passed on another stack of the same class (the node was fine; the stack changed)
// known-good   passed on >= min_nodes distinct nodes and failed on none
// mixed        failed on some node, but no failing node is known to have passed elsewhere before:
//              the failure may be the node's own hardware
// unqualified  failed on none, and passed on fewer than min_nodes nodes (or only inconclusive runs)
//
// Deterministic: rows, nodes and images are sorted, and nothing depends on the clock or on the
// number of threads, so the same records give the same bytes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/matrix_stack.hpp"
#include "core/verdict.hpp"

namespace gpuqual {

inline constexpr const char* kMatrixSchema = "gpuqual.matrix/v1";
inline constexpr int kDefaultMinNodes = 2;

enum class MatrixState { known_good, known_bad, mixed, unqualified };
std::string_view to_string(MatrixState s);
std::optional<MatrixState> parse_matrix_state(std::string_view text);

struct MatrixRow {
  std::string hardware_class;
  std::string gpu_product;          // "NVIDIA H200"
  std::string compute_capability;   // "9.0": what the driver-branch rules judge
  StackComponents stack;            // core/matrix_stack.hpp, in its order
  std::vector<std::string> images;  // validated workload images, sorted
  std::vector<std::string> nodes_passed;  // distinct, sorted
  std::vector<std::string> nodes_failed;
  int runs_passed = 0;              // outcome pass or warn
  int runs_failed = 0;
  int runs_inconclusive = 0;
  std::string first_seen;           // started_at of the earliest run, as recorded
  std::string last_seen;
  MatrixState state = MatrixState::unqualified;
  std::string why;                  // one sentence: what decided the state
  // The value of `name` in this row's stack, or null.
  const std::string* component(const std::string& name) const;
};

struct Matrix {
  std::string schema = kMatrixSchema;
  int min_nodes = kDefaultMinNodes;
  std::size_t records = 0;          // records judged
  std::size_t unreadable = 0;       // record files that could not be read (left out)
  std::vector<MatrixRow> rows;      // sorted by class, then stack
  std::string origin;               // the file it was loaded from
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
};
MatrixObservation observe_record(const RunRecord& record, Outcome outcome);

class MatrixBuilder {
 public:
  explicit MatrixBuilder(int min_nodes = kDefaultMinNodes) : min_nodes_(min_nodes) {}
  // Add in input order. The same run (node and run_id) given twice counts once.
  void add(MatrixObservation o);
  void add_unreadable() { ++unreadable_; }
  Matrix finish();

 private:
  struct Event {
    std::size_t node;
    std::size_t row;
    std::optional<std::int64_t> started_ms;
    Outcome outcome;
  };
  struct Acc {
    MatrixObservation first;  // class, product, stack (images and run ids cleared)
    std::map<std::string, int> images;
    std::optional<std::int64_t> first_ms, last_ms;
    std::string first_seen, last_seen;
  };
  int min_nodes_;
  std::size_t records_ = 0;
  std::size_t unreadable_ = 0;
  std::map<std::string, std::size_t> row_index_;  // class + stack → row
  std::vector<Acc> rows_;
  std::map<std::string, std::size_t> node_index_;
  std::vector<std::string> node_names_;
  std::set<std::pair<std::size_t, std::string>> runs_seen_;
  std::vector<Event> events_;
};

}  // namespace gpuqual
