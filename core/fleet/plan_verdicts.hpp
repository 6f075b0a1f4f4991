#pragma once
// What gpuqual has judged so far, by Kubernetes node name, for `gpuqual plan --verdicts`:
// a gate verdict gives one outcome per node (its nodes[], named by the records' k8s node name),
// a compare or diff verdict one for its node. Later verdicts replace earlier ones for the same
// node (pass the files oldest first).
#include <map>
#include <string>
#include <vector>

#include "core/fleet/plan_cluster.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

using NodeOutcomes = std::map<std::string, Outcome>;

// Adds the outcomes of `v` (gate: each node; compare/diff: its host). A verdict without a node
// name is an InputError naming `origin`. `may_qualify` false: a pass or warn counts as
// inconclusive (a verdict file holds neither its records' time nor their history, so under
// --max-age or --consecutive it cannot show that it still qualifies the node; docs/plan.md).
void add_node_outcomes(const Verdict& v, const std::string& origin, NodeOutcomes& out,
                       bool may_qualify = true);

// The class of each node's records, by node name, as the verdicts state it (a compare or diff
// verdict its record's class, a gate verdict each node's).
using NodeClasses = std::map<std::string, std::string>;
void add_node_classes(const Verdict& v, NodeClasses& out);

// A node its labels leave `unknown` takes the class of its records (docs/plan.md): a MIG node
// labelled by GPU Feature Discovery's single strategy (`nvidia.com/gpu.product` ending
// `-MIG-<profile>`) the slice class `<records' parent class>-mig-<profile>`, any other node the
// records' class. A node without records, or whose records' class is unknown or mixed, stays.
void apply_record_classes(std::vector<ClusterNode>& nodes, const NodeClasses& classes);

// pass/warn: qualified (done); fail: stays out and is no longer capacity; inconclusive: still
// to be qualified (planned like a node without a verdict).
inline bool is_qualified(Outcome o) { return o == Outcome::pass || o == Outcome::warn; }

}  // namespace gpuqual
