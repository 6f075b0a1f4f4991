#pragma once
// Racks in `gpuqual gate` (docs/gate.md, "Racks"): the nodes of one multi-node NVLink domain (a
// GB200/GB300 NVL72 rack, named by the record's node label: core/record/rack.hpp) share its
// NVLink switch trays, its fabric and its IMEX domain, so the pool judges the rack whole, as
// `plan` rolls it out whole (docs/plan.md, "Racks (NVL72)"):
//
// - a node of the rack that failed fails the rack: each of its other nodes that passed or warned
//   is held (its verdict fails, the reason names the rack and the failed node), so the failure
//   budget (--max-failed) counts the rack's capacity as lost together;
// - a rack whose nodes run two driver versions fails the pool, --target or not: the rack is
//   part upgraded, and no stack has been qualified on it as one unit.
//
// Nodes without a rack, unreadable records and inconclusive nodes are left as they are (an
// inconclusive node already keeps the pool from passing).
#include <string>
#include <vector>

#include "core/judge/gate.hpp"

namespace gpuqual {

struct RackJudgement {
  std::vector<std::string> fails;  // the pool's failing reasons (a rack on two drivers)
  std::vector<std::string> notes;  // "racks judged whole: R (4 nodes); S (2 nodes, 1 held by ...)"
};

// Judges the racks of `nodes` (the records that count, one per node) and holds the nodes of a
// failed rack in place.
RackJudgement judge_racks(std::vector<NodeSummary>& nodes);

}  // namespace gpuqual
