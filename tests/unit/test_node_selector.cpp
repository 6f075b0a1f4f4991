// The node selection evaluator (core/fleet/node_selector.hpp) against the rules of the
// Kubernetes API reference (kubernetes.io/docs/reference/kubernetes-api/, definitions
// NodeSelector: "The terms are ORed"; NodeSelectorTerm: "A null or empty node selector term
// matches no objects. The requirements of them are ANDed"; NodeSelectorRequirement: In, NotIn,
// Exists, DoesNotExist, Gt, Lt, "If the operator is Gt or Lt, the values array must have a
// single element, which will be interpreted as an integer"), and read from the API's own JSON.
// The pod shapes are those of the Kubernetes docs: "Assign Pods to Nodes using Node Affinity"
// (pods/pod-with-node-affinity.yaml, as `kubectl get pod -o json` prints it) and the node
// affinity the DaemonSet controller writes into each of its pods ("DaemonSet", Scheduled by
// default scheduler: matchFields metadata.name In [the node]). The node is one of
// tests/data/plan/example/nodes.json (real `kubectl get nodes -o json` shape).
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/fleet/node_selector.hpp"
#include "core/fleet/plan_cluster_json.hpp"

namespace gpuqual {
namespace {

using Op = NodeSelectorRequirement::Op;

const Labels kH200 = {{"kubernetes.io/hostname", "h200-01"},
                      {"nvidia.com/gpu.product", "NVIDIA-H200"},
                      {"nvidia.com/gpu.memory", "143771"},
                      {"nvidia.com/gpu.count", "8"},
                      {"topology.kubernetes.io/zone", "antarctica-east1"}};

NodeSelectorRequirement req(const std::string& key, Op op, std::vector<std::string> values = {}) {
  return {key, op, std::move(values)};
}

TEST(NodeSelector, InNotInExistsDoesNotExist) {
  EXPECT_TRUE(req("nvidia.com/gpu.product", Op::in, {"NVIDIA-H100", "NVIDIA-H200"}).matches(kH200));
  EXPECT_FALSE(req("nvidia.com/gpu.product", Op::in, {"NVIDIA-H100"}).matches(kH200));
  EXPECT_FALSE(req("missing", Op::in, {""}).matches(kH200));  // no label: not in any set
  EXPECT_FALSE(req("nvidia.com/gpu.product", Op::not_in, {"NVIDIA-H200"}).matches(kH200));
  EXPECT_TRUE(req("nvidia.com/gpu.product", Op::not_in, {"NVIDIA-H100"}).matches(kH200));
  EXPECT_TRUE(req("missing", Op::not_in, {"x"}).matches(kH200));  // NotIn matches a node without it
  EXPECT_TRUE(req("nvidia.com/gpu.count", Op::exists).matches(kH200));
  EXPECT_FALSE(req("missing", Op::exists).matches(kH200));
  EXPECT_TRUE(req("missing", Op::does_not_exist).matches(kH200));
  EXPECT_FALSE(req("nvidia.com/gpu.count", Op::does_not_exist).matches(kH200));
}

// Gt and Lt compare integers strictly; a label or a value that is not an integer, or a label the
// node does not have, matches nothing.
TEST(NodeSelector, GtLtCompareIntegers) {
  EXPECT_TRUE(req("nvidia.com/gpu.memory", Op::gt, {"81559"}).matches(kH200));
  EXPECT_FALSE(req("nvidia.com/gpu.memory", Op::gt, {"143771"}).matches(kH200));  // strictly greater
  EXPECT_TRUE(req("nvidia.com/gpu.memory", Op::lt, {"143772"}).matches(kH200));
  EXPECT_FALSE(req("nvidia.com/gpu.memory", Op::lt, {"143771"}).matches(kH200));
  EXPECT_TRUE(req("nvidia.com/gpu.count", Op::gt, {"-1"}).matches(kH200));
  EXPECT_TRUE(req("nvidia.com/gpu.count", Op::lt, {"+9"}).matches(kH200));  // ParseInt takes a sign
  EXPECT_TRUE(req("nvidia.com/gpu.count", Op::gt, {"007"}).matches(kH200));
  EXPECT_FALSE(req("nvidia.com/gpu.product", Op::gt, {"0"}).matches(kH200));  // "NVIDIA-H200": no integer
  EXPECT_FALSE(req("nvidia.com/gpu.count", Op::gt, {"4.5"}).matches(kH200));  // the bound is no integer
  EXPECT_FALSE(req("nvidia.com/gpu.count", Op::lt, {"99999999999999999999"}).matches(kH200));  // > int64
  EXPECT_FALSE(req("missing", Op::lt, {"100"}).matches(kH200));
  EXPECT_FALSE(req("nvidia.com/gpu.count", Op::gt, {"1", "2"}).matches(kH200));  // not a single value
  EXPECT_EQ(selector_integer("-42"), -42);
  EXPECT_EQ(selector_integer("+0"), 0);
  for (const char* bad : {"", "+", "-", "+-1", " 1", "1 ", "0x10", "1e3", "9223372036854775808"})
    EXPECT_FALSE(selector_integer(bad).has_value()) << bad;
  EXPECT_EQ(selector_integer("9223372036854775807"), 9223372036854775807LL);
}

TEST(NodeSelector, TermsAreOredRequirementsAndedEmptyMatchesNothing) {
  const NodeSelectorTerm h200{{req("nvidia.com/gpu.product", Op::in, {"NVIDIA-H200"}),
                               req("nvidia.com/gpu.memory", Op::gt, {"100000"})},
                              {}};
  const NodeSelectorTerm h100{{req("nvidia.com/gpu.product", Op::in, {"NVIDIA-H100"})}, {}};
  const NodeSelectorTerm h200_small{{req("nvidia.com/gpu.product", Op::in, {"NVIDIA-H200"}),
                                     req("nvidia.com/gpu.memory", Op::lt, {"100000"})},
                                    {}};
  EXPECT_TRUE(h200.matches("h200-01", kH200));
  EXPECT_FALSE(h200_small.matches("h200-01", kH200));  // one requirement fails: the term does
  EXPECT_TRUE((NodeSelector{{h100, h200}}).matches("h200-01", kH200));
  EXPECT_FALSE((NodeSelector{{h100, h200_small}}).matches("h200-01", kH200));
  EXPECT_FALSE(NodeSelectorTerm{}.matches("h200-01", kH200));                    // empty term
  EXPECT_FALSE((NodeSelector{{NodeSelectorTerm{}}}).matches("h200-01", kH200));  // its only term empty
  EXPECT_TRUE((NodeSelector{{NodeSelectorTerm{}, h200}}).matches("h200-01", kH200));
  EXPECT_FALSE(NodeSelector{}.matches("h200-01", kH200));  // no term at all
}

TEST(NodeSelector, MatchFieldsSelectTheNodeName) {
  const NodeSelectorTerm pinned{{}, {req(kNodeNameField, Op::in, {"h200-01"})}};
  EXPECT_TRUE(pinned.matches("h200-01", kH200));
  EXPECT_FALSE(pinned.matches("h200-02", kH200));
  const NodeSelectorTerm not_there{{}, {req(kNodeNameField, Op::not_in, {"h200-01"})}};
  EXPECT_FALSE(not_there.matches("h200-01", kH200));
  EXPECT_TRUE(not_there.matches("h200-02", kH200));
  // Fields and labels in one term are ANDed.
  const NodeSelectorTerm both{{req("nvidia.com/gpu.product", Op::in, {"NVIDIA-H100"})},
                              {req(kNodeNameField, Op::in, {"h200-01"})}};
  EXPECT_FALSE(both.matches("h200-01", kH200));
}

TEST(NodeSelector, NodeSelectorMapAndRequiredAffinityAreAnded) {
  const std::optional<NodeSelector> h200{
      NodeSelector{{NodeSelectorTerm{{req("nvidia.com/gpu.product", Op::in, {"NVIDIA-H200"})}, {}}}}};
  EXPECT_TRUE(node_affinity_matches({}, std::nullopt, "h200-01", kH200));  // no constraint
  EXPECT_TRUE(node_affinity_matches({{"nvidia.com/gpu.count", "8"}}, h200, "h200-01", kH200));
  EXPECT_FALSE(node_affinity_matches({{"nvidia.com/gpu.count", "4"}}, h200, "h200-01", kH200));
  EXPECT_FALSE(node_affinity_matches({{"missing", ""}}, std::nullopt, "h200-01", kH200));
  EXPECT_FALSE(node_affinity_matches({}, NodeSelector{}, "h200-01", kH200));  // required, no terms
}

// The docs' pod-with-node-affinity example, a Gt on GFD's memory label, and the DaemonSet
// controller's matchFields pin, read as kubectl prints them.
nlohmann::json pod_with_affinity(const nlohmann::json& required) {
  auto doc = nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "List", "items": [{
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "with-node-affinity", "namespace": "default"},
    "spec": {
      "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": null,
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [
          {"key": "another-node-label-key", "operator": "In", "values": ["another-node-label-value"]}]}}]}},
      "containers": [{"name": "with-node-affinity", "image": "registry.k8s.io/pause:3.8"}]},
    "status": {"phase": "Running"}}]})");
  doc["items"][0]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      required;
  return doc;
}

NodeSelector read_required(const nlohmann::json& required) {
  const auto pods = pods_from_json(pod_with_affinity(required), "pods.json");
  EXPECT_TRUE(pods.at(0).required_affinity.has_value());
  return pods.at(0).required_affinity.value_or(NodeSelector{});
}

TEST(NodeSelector, ReadFromTheApiShapes) {
  const auto zone = read_required(nlohmann::json::parse(R"({"nodeSelectorTerms":[{"matchExpressions":[
      {"key":"topology.kubernetes.io/zone","operator":"In","values":["antarctica-east1","antarctica-west1"]}]}]})"));
  EXPECT_TRUE(zone.matches("h200-01", kH200));
  EXPECT_FALSE(zone.matches("h200-01", {{"topology.kubernetes.io/zone", "europe-west4"}}));
  const auto memory = read_required(nlohmann::json::parse(R"({"nodeSelectorTerms":[{"matchExpressions":[
      {"key":"nvidia.com/gpu.memory","operator":"Gt","values":["81559"]}]}]})"));
  EXPECT_TRUE(memory.matches("h200-01", kH200));
  EXPECT_FALSE(memory.matches("h100-01", {{"nvidia.com/gpu.memory", "81559"}}));
  const auto daemon = read_required(nlohmann::json::parse(R"({"nodeSelectorTerms":[{"matchFields":[
      {"key":"metadata.name","operator":"In","values":["h200-01"]}]}]})"));
  EXPECT_TRUE(daemon.matches("h200-01", kH200));
  EXPECT_FALSE(daemon.matches("h200-02", kH200));
  // An empty matchExpressions list (and no matchFields), and an empty term list: no node.
  EXPECT_FALSE(read_required(nlohmann::json::parse(R"({"nodeSelectorTerms":[{"matchExpressions":[]}]})"))
                   .matches("h200-01", kH200));
  EXPECT_FALSE(read_required(nlohmann::json::parse(R"({"nodeSelectorTerms":[]})")).matches("h200-01", kH200));
  // No required node affinity at all: no constraint.
  auto doc = pod_with_affinity(nullptr);
  doc["items"][0]["spec"].erase("affinity");
  EXPECT_FALSE(pods_from_json(doc, "pods.json").at(0).required_affinity.has_value());
}

std::string read_error(const std::string& required) {
  try {
    read_required(nlohmann::json::parse(required));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// What the API server itself refuses (core/v1 validation) is exit 3 with the path; an operator
// a NodeSelectorRequirement does not have, too.
TEST(NodeSelector, WhatTheApiRefusesIsAnInputError) {
  const std::string at =
      "pods.json: $.items[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0].";
  EXPECT_EQ(read_error(R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Gt"}]}]})"),
            at + "matchExpressions[0].values: Gt and Lt take exactly one value, an integer");
  EXPECT_EQ(read_error(R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Lt",
      "values":["1","2"]}]}]})"),
            at + "matchExpressions[0].values: Gt and Lt take exactly one value, an integer");
  EXPECT_EQ(read_error(R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Gte",
      "values":["1"]}]}]})"),
            at + "matchExpressions[0].operator: \"Gte\" is not In, NotIn, Exists, DoesNotExist, Gt or Lt");
  EXPECT_EQ(read_error(R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.namespace",
      "operator":"In","values":["x"]}]}]})"),
            at + "matchFields[0].key: \"metadata.namespace\" is not a node field matchFields can select: "
                 "only metadata.name");
  EXPECT_EQ(read_error(R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name",
      "operator":"Exists"}]}]})"),
            at + "matchFields[0].operator: \"Exists\" is not In or NotIn (matchFields)");
  EXPECT_EQ(read_error(R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name",
      "operator":"In","values":["a","b"]}]}]})"),
            at + "matchFields[0].values: matchFields In and NotIn take exactly one value, a node name");
  // A Gt value that is not an integer passes the API's validation: read, and it matches no node.
  EXPECT_EQ(read_error(R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Gt",
      "values":["big"]}]}]})"),
            "(no error)");
  // A PDB's selector is a meta/v1 LabelSelector: it has no Gt.
  try {
    pdbs_from_json(nlohmann::json::parse(R"({"items":[{"metadata":{"name":"d","namespace":"n"},
        "spec":{"selector":{"matchExpressions":[{"key":"k","operator":"Gt","values":["1"]}]}}}]})"),
                   "pdbs.json");
    ADD_FAILURE() << "a PDB selector with Gt was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pdbs.json: $.items[0].spec.selector.matchExpressions[0].operator: \"Gt\" is not In, NotIn, "
              "Exists or DoesNotExist");
  }
}

}  // namespace
}  // namespace gpuqual
