#pragma once
// Which nodes a pod may be scheduled on by its node selection, evaluated as the Kubernetes
// scheduler's NodeAffinity filter does: the pod's spec.nodeSelector (every key with that value)
// AND its spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, a core/v1
// NodeSelector. The rules, from the API reference (kubernetes.io/docs/reference/kubernetes-api/,
// definitions NodeSelector, NodeSelectorTerm, NodeSelectorRequirement):
// - NodeSelector: "Required. A list of node selector terms. The terms are ORed." No term: no node.
// - NodeSelectorTerm: "A null or empty node selector term matches no objects. The requirements
//   of them are ANDed." matchExpressions are on the node's labels, matchFields on its fields
//   (the scheduler gives a node one field, metadata.name; the API refuses any other key).
// - NodeSelectorRequirement operators: In, NotIn, Exists, DoesNotExist, Gt, Lt. "If the operator
//   is Gt or Lt, the values array must have a single element, which will be interpreted as an
//   integer"; the label's value is parsed as an integer too, and a label (or value) that is not
//   one does not match. NotIn and DoesNotExist match a node without the label.
// The same requirement shape is meta/v1 LabelSelectorRequirement (a PDB's selector), which has
// only the first four operators; its readers refuse Gt and Lt (plan_cluster_json.cpp).
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuqual {

using Labels = std::map<std::string, std::string>;

// The one field of a node that matchFields can select on (core/v1 validation allows no other).
inline constexpr const char* kNodeNameField = "metadata.name";

struct NodeSelectorRequirement {
  enum class Op { in, not_in, exists, does_not_exist, gt, lt };
  std::string key;
  Op op = Op::exists;
  std::vector<std::string> values;
  // Against one value: `value` is the label's (or field's) value, nullptr when the node has none.
  bool matches_value(const std::string* value) const;
  bool matches(const Labels& labels) const;  // matchExpressions: the value of label `key`
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;  // on the node's labels
  std::vector<NodeSelectorRequirement> match_fields;       // on its fields: metadata.name
  // Every requirement of both lists; a term with neither matches no node.
  bool matches(const std::string& node_name, const Labels& node_labels) const;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;  // ORed; none: no node
  bool matches(const std::string& node_name, const Labels& node_labels) const;
};

// The NodeAffinity filter: `node_selector` (spec.nodeSelector; empty: every node) AND `required`
// (the required node affinity; absent: every node).
bool node_affinity_matches(const Labels& node_selector, const std::optional<NodeSelector>& required,
                           const std::string& node_name, const Labels& node_labels);

// A label value (or a Gt/Lt value) as the scheduler parses it, Go's strconv.ParseInt(s, 10, 64):
// an optional sign and decimal digits, within int64; anything else is nullopt.
std::optional<long long> selector_integer(const std::string& text);

}  // namespace gpuqual
