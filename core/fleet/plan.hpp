#pragma once
// `gpuqual plan`: rollout waves that keep GPU capacity (docs/plan.md). Pure: the cluster, the
// policy and the verdicts so far in, the plan out; the same input gives the same plan.
//
// Wave 0 is the canary: per class the `canary` least disruptive nodes that may go. Then batches,
// each taking nodes in the same order while, per class, at most `max_nodes_out` nodes are out
// and the schedulable GPUs left stay at or above the floor, and, over the whole wave, no
// PodDisruptionBudget gives more evictions than its status.disruptionsAllowed. A wave starts
// after the previous one passed its gate: its nodes are back, its evicted pods rescheduled and
// the PDBs' budgets restored, so each wave is judged against the full capacity (less failed
// nodes) and the full budgets.
//
// A node that may never go under the policy as it stands is deferred with every reason: a PDB
// that allows fewer disruptions than the node has of its pods, a pod under two PDBs (the
// eviction API refuses it), a pod that declares no controller (`kubectl drain` refuses it and
// nothing would recreate it), an unfinished training pod without a checkpoint (or any, with
// before_drain: done), GPUs whose absence alone would break the floor, a class the policy does
// not name. A floor above what the class has cannot be met at all.
//
// A rack (the nodes of one multi-node NVLink domain, core/record/rack.hpp) is one unit: its
// nodes go in one wave or all wait, it counts as one against canary and max_nodes_out, and its
// GPUs and pods count together against the floor and the PDBs.
#include <string>
#include <vector>

#include "core/fleet/plan_cluster.hpp"
#include "core/fleet/plan_policy.hpp"
#include "core/fleet/plan_verdicts.hpp"

namespace gpuqual {

struct PlannedEviction {
  std::string pod;  // namespace/name
  std::string node;
  int gpus = 0;
  bool training = false;          // training work with its checkpoint taken
  std::vector<std::string> pdbs;  // the PDBs it takes one disruption of
  std::string placed_on;          // GPU pods: the first staying node that fits; "" none does
};

struct PdbUse {
  std::string pdb;    // namespace/name
  int evictions = 0;  // in this wave
  int allowed = 0;    // status.disruptionsAllowed
};

struct WaveClass {
  std::string hardware_class;
  int nodes_out = 0;
  int gpus_out = 0;  // schedulable GPUs leaving (a cordoned node's leave none)
  int schedulable_left = 0;
  int floor = 0;
};

struct Wave {
  int index = 0;
  bool canary = false;
  std::vector<std::string> nodes;
  std::vector<std::string> by_rank;  // the same nodes, least disruptive first (re-validation takes a prefix)
  std::vector<std::string> racks;    // the racks it takes whole (core/record/rack.hpp), sorted
  std::vector<WaveClass> classes;
  std::vector<PlannedEviction> evictions;
  std::vector<PdbUse> pdbs;
  int unplaced_gpu_pods = 0;  // GPU pods that fit on no staying node of their class
  bool fits() const { return unplaced_gpu_pods == 0; }
};

enum class NodeState { planned, done, failed, excluded, deferred };
std::string_view to_string(NodeState s);

struct NodeFate {
  std::string node;
  std::string hardware_class;
  int gpus = 0;
  NodeState state = NodeState::deferred;
  int wave = -1;     // planned: its wave
  std::string rack;  // "" in no rack
  std::vector<std::string> reasons;
};

struct ClassCapacity {
  std::string hardware_class;
  int nodes = 0;
  int gpus = 0;         // allocatable GPUs of all its nodes
  int schedulable = 0;  // on nodes that are Ready, not cordoned and not failed
  int floor = 0;
  std::string floor_text;  // as the policy says it ("48", "75%"); "" when not in the policy
  bool unmet = false;      // the floor is above what the class has
};

struct Plan {
  std::vector<Wave> waves;
  std::vector<NodeFate> nodes;  // every GPU node exactly once, by name
  std::vector<ClassCapacity> classes;
  int exit_code = 0;    // 0 every node planned (or done/out), 2 some must wait, 1 a floor cannot be met
  std::string summary;  // one line
  // What the plan could not act on but the operator should know: a policy class that no GPU node
  // of the cluster has. On stderr (every format) and in the plan-result JSON when there are any.
  std::vector<std::string> warnings;
};

Plan make_plan(const Cluster& cluster, const PlanPolicy& policy, const NodeOutcomes& verdicts);

}  // namespace gpuqual
