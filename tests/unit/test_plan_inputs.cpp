// Reading what `gpuqual plan` plans from: the Kubernetes JSON (tests/data/plan/example/, in the
// shape `kubectl get ... -o json` prints) and the gpuqual.plan/v1 policy, with the errors an
// operator gets for bad input (file, JSON path or line, problem).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/fleet/plan_cluster_json.hpp"
#include "core/fleet/plan_policy.hpp"

namespace gpuqual {
namespace {

const std::string kExample = std::string(GPUQUAL_TEST_DATA) + "/plan/example/";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PlanInputs, ReadsNodesAsKubectlPrintsThem) {
  const auto nodes = nodes_from_json(read_json_file(kExample + "nodes.json"), "nodes.json");
  ASSERT_EQ(nodes.size(), 7u);
  EXPECT_EQ(nodes[0].name, "h200-01");
  EXPECT_EQ(nodes[0].hardware_class, "h200-sxm-141gb");  // from the GFD labels, as every record's class
  EXPECT_EQ(nodes[0].gpus, 8);
  EXPECT_TRUE(nodes[0].ready);
  EXPECT_FALSE(nodes[0].unschedulable);
  ASSERT_EQ(nodes[0].taints.size(), 1u);
  EXPECT_EQ(nodes[0].taints[0].key, "nvidia.com/gpu");
  EXPECT_EQ(nodes[4].hardware_class, "h100-sxm-80gb");
}

TEST(PlanInputs, ReadsPodsOwnersRequestsAndPdbs) {
  const auto pods = pods_from_json(read_json_file(kExample + "pods.json"), "pods.json");
  ASSERT_EQ(pods.size(), 12u);
  const auto vllm =
      std::find_if(pods.begin(), pods.end(), [](auto& p) { return p.name.rfind("vllm-", 0) == 0; });
  ASSERT_NE(vllm, pods.end());
  EXPECT_EQ(vllm->ns, "inference");
  EXPECT_EQ(vllm->gpus, 4);
  EXPECT_EQ(vllm->node, "h200-01");
  EXPECT_EQ(vllm->owners.at(0).kind, "ReplicaSet");
  EXPECT_EQ(vllm->node_selector.at("nvidia.com/gpu.product"), "NVIDIA-H200");
  EXPECT_EQ(vllm->phase, "Running");
  const auto ds = std::find_if(pods.begin(), pods.end(), [](auto& p) { return p.ns == "gpu-operator"; });
  EXPECT_TRUE(ds->stays_on_drain());
  const auto pdbs = pdbs_from_json(read_json_file(kExample + "pdbs.json"), "pdbs.json");
  ASSERT_EQ(pdbs.size(), 1u);
  EXPECT_EQ(pdbs[0].key(), "inference/vllm");
  EXPECT_EQ(pdbs[0].disruptions_allowed, 1);
  EXPECT_TRUE(pdbs[0].selector.matches(vllm->labels));
  EXPECT_FALSE(pdbs[0].selector.matches(ds->labels));
}

// Kubernetes' effective request: max(sum of containers + sidecars, largest init container);
// an extended resource given only as a limit requests the limit.
TEST(PlanInputs, EffectiveGpuRequest) {
  const auto doc =
      nlohmann::json::parse(R"({"kind":"PodList","items":[{"metadata":{"name":"p","namespace":"n"},
    "spec":{"nodeName":"a","containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":"2"}}},
                                        {"name":"b","resources":{"requests":{"nvidia.com/gpu":"1"}}}],
            "initContainers":[{"name":"i","resources":{"requests":{"nvidia.com/gpu":"4"}}},
                              {"name":"s","restartPolicy":"Always","resources":{"requests":{"nvidia.com/gpu":"1"}}}]},
    "status":{"phase":"Running"}}]})");
  EXPECT_EQ(pods_from_json(doc, "pods.json").at(0).gpus, 4);  // init 4 > 2 + 1 + 1 sidecar
}

TEST(PlanInputs, PdbSelectorsNullSelectsNoneEmptySelectsAll) {
  const auto doc = nlohmann::json::parse(R"({"items":[
    {"metadata":{"name":"none","namespace":"n"},"spec":{},"status":{"disruptionsAllowed":0}},
    {"metadata":{"name":"all","namespace":"n"},"spec":{"selector":{}},"status":{"disruptionsAllowed":1}},
    {"metadata":{"name":"expr","namespace":"n"},"spec":{"selector":{"matchExpressions":[{"key":"app","operator":"NotIn","values":["x"]}]}}}]})");
  const auto pdbs = pdbs_from_json(doc, "pdbs.json");
  EXPECT_FALSE(pdbs[0].selector.matches({{"app", "y"}}));
  EXPECT_TRUE(pdbs[1].selector.matches({{"app", "y"}}));
  EXPECT_TRUE(pdbs[2].selector.matches({{"app", "y"}}));
  EXPECT_FALSE(pdbs[2].selector.matches({{"app", "x"}}));
  EXPECT_EQ(pdbs[2].disruptions_allowed, 0);  // no status yet: nothing may be evicted
}

TEST(PlanInputs, BadClusterInputNamesFileAndPath) {
  auto nodes = [](const char* text) {
    return error_of([&] { nodes_from_json(nlohmann::json::parse(text), "nodes.json"); });
  };
  EXPECT_EQ(
      nodes(R"({"items":[{"metadata":{"name":"a"},"status":{"allocatable":{"nvidia.com/gpu":"500m"}}}]})"),
      "nodes.json: $.items[0].status.allocatable[\"nvidia.com/gpu\"]: \"500m\" is not a whole number of "
      "GPUs");
  EXPECT_EQ(nodes(R"({"items":[{"kind":"Pod","metadata":{"name":"a"}}]})"),
            "nodes.json: $.items[0].kind: expected Node, found \"Pod\"");
  EXPECT_EQ(nodes(R"({"items":{}})"), "nodes.json: $.items: expected an array");
  EXPECT_EQ(nodes(R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]})"),
            "nodes.json: $.items[1]: node a listed twice");
  EXPECT_EQ(nodes(R"({"items":[{"metadata":{"name":"a"},"spec":{"unschedulable":"yes"}}]})"),
            "nodes.json: $.items[0].spec.unschedulable: expected true or false");
  EXPECT_EQ(nodes(R"([1])"), "nodes.json: $: expected a Node list object (kubectl get -o json)");
  EXPECT_EQ(error_of([] {
              pods_from_json(nlohmann::json::parse(
                                 R"({"items":[{"metadata":{"name":"p"},"spec":{"affinity":{"nodeAffinity":{
    "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Gte","values":["1"]}]}]}}}}}]})"),
                             "pods.json");
            }),
            "pods.json: "
            "$.items[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0]"
            ".matchExpressions[0].operator: \"Gte\" is not In, NotIn, Exists, DoesNotExist, Gt or Lt");
}

// The documents are read from their text (simdjson): the parse refuses what read_json_file
// refuses, with its messages, and the reader keeps nlohmann's rules for the odd cases.
TEST(PlanInputs, TextReaderRefusesBadDocumentsAndKeepsTheOddCasesRules) {
  const JsonLimits limits{1 << 20, 8};
  EXPECT_EQ(error_of([&] { read_nodes("", "nodes.json", limits); }), "nodes.json: input is empty");
  EXPECT_EQ(error_of([&] { read_nodes(" \n", "nodes.json", limits); }), "nodes.json: input is empty");
  EXPECT_EQ(error_of([&] { read_nodes(std::string(2 << 20, ' '), "nodes.json", limits); }),
            "nodes.json: input is 2097152 bytes, over the limit of 1048576 bytes");
  EXPECT_NE(
      error_of([&] { read_pods(R"({"items": [)", "pods.json", limits); }).find("pods.json: malformed JSON"),
      std::string::npos);
  EXPECT_EQ(error_of([&] { read_pdbs(R"({"items":[[[[[[[[[[1]]]]]]]]]]})", "pdbs.json", limits); }),
            "pdbs.json: nesting deeper than 8 levels");
  // A key given twice says two things of one field: refused (exit 3), as records and baselines
  // refuse it (core/base/simdjson_fields.hpp).
  EXPECT_EQ(error_of([&] {
              read_nodes(R"({"items":[{"metadata":{"name":"a","name":"b"}}]})", "nodes.json", limits);
            }),
            "nodes.json: $.items[0].metadata.name: duplicate key \"name\"");
  // Of several non-string labels, the first in key order is named, whatever the document order.
  EXPECT_EQ(error_of([&] {
              read_nodes(R"({"items":[{"metadata":{"name":"a","labels":{"z":1,"b":true,"a":"ok"}}}]})",
                         "nodes.json", limits);
            }),
            "nodes.json: $.items[0].metadata.labels.b: expected a string");
  // An integer quantity out of range, signed or unsigned, and a fraction written as a number.
  EXPECT_EQ(
      error_of([&] {
        read_nodes(
            R"({"items":[{"metadata":{"name":"a"},"status":{"allocatable":{"nvidia.com/gpu":18446744073709551615}}}]})",
            "nodes.json", limits);
      }),
      "nodes.json: $.items[0].status.allocatable[\"nvidia.com/gpu\"]: 18446744073709551615 GPUs is out of "
      "range");
  EXPECT_EQ(error_of([&] {
              read_nodes(
                  R"({"items":[{"metadata":{"name":"a"},"status":{"allocatable":{"nvidia.com/gpu":-1}}}]})",
                  "nodes.json", limits);
            }),
            "nodes.json: $.items[0].status.allocatable[\"nvidia.com/gpu\"]: -1 GPUs is out of range");
  EXPECT_EQ(error_of([&] {
              read_nodes(
                  R"({"items":[{"metadata":{"name":"a"},"status":{"allocatable":{"nvidia.com/gpu":1.5}}}]})",
                  "nodes.json", limits);
            }),
            "nodes.json: $.items[0].status.allocatable[\"nvidia.com/gpu\"]: expected a quantity string such "
            "as \"8\"");
  // A container that is not an object is an error at its path (it was read as "no GPUs").
  EXPECT_EQ(error_of([&] {
              read_pods(R"({"items":[{"metadata":{"name":"p"},"spec":{"containers":[7]}}]})", "pods.json",
                        limits);
            }),
            "pods.json: $.items[0].spec.containers[0]: expected an object");
  EXPECT_EQ(error_of([&] { read_pods(R"({"items":[{"spec":{}}]})", "pods.json", limits); }),
            "pods.json: $.items[0].metadata.name: required field is missing");
  // One object instead of a list, and "items": null (an empty list).
  EXPECT_EQ(
      read_pdbs(R"({"kind":"PodDisruptionBudget","metadata":{"name":"d"}})", "pdbs.json", limits).size(), 1u);
  EXPECT_TRUE(read_pods(R"({"kind":"PodList","items":null})", "pods.json", limits).empty());
}

TEST(PlanPolicyFile, SmallestFormAndDefaults) {
  const PlanPolicy p = parse_plan_policy_yaml(
      "schema: gpuqual.plan/v1\nclasses:\n  h100-sxm-80gb: {min_schedulable_gpus: 48, max_nodes_out: 2, "
      "canary: 1}\n",
      "p.yaml");
  const ClassPolicy& c = p.classes.at("h100-sxm-80gb");
  EXPECT_EQ(c.floor_gpus(64), 48);
  EXPECT_EQ(c.max_nodes_out, 2);
  EXPECT_EQ(c.canary, 1);
  EXPECT_EQ(p.training.before_drain, TrainingPolicy::BeforeDrain::checkpoint);
  EXPECT_EQ(p.training.checkpoint_annotation, "gpuqual.io/checkpointed");
}

TEST(PlanPolicyFile, PercentFloorRoundsUp) {
  const PlanPolicy p = load_plan_policy(kExample + "policy.yaml");
  EXPECT_EQ(p.classes.at("h200-sxm-141gb").floor_gpus(32), 24);
  EXPECT_EQ(p.classes.at("h200-sxm-141gb").floor_gpus(33), 25);  // 24.75 → 25: never below 75 %
  EXPECT_EQ(p.classes.at("h100-sxm-80gb").floor_gpus(24), 16);
  EXPECT_EQ(p.training.owner_kinds, (std::vector<std::string>{"Job", "JobSet", "MPIJob", "PyTorchJob"}));
}

TEST(PlanPolicyFile, BadPolicyNamesFileLineAndProblem) {
  auto err = [](const std::string& body) {
    return error_of([&] { parse_plan_policy_yaml("schema: gpuqual.plan/v1\n" + body, "plan.yaml"); });
  };
  EXPECT_EQ(err("classes:\n  h100-sxm-80gb: {min_schedulable_gpus: 48, max_nodes_out: 2, canary: 3}\n"),
            "plan.yaml: line 3: $.classes.h100-sxm-80gb.canary: a canary of 3 nodes is more than "
            "max_nodes_out (2)");
  EXPECT_EQ(err("classes:\n  h100-sxm-80gb: {min_schedulable_gpus: 48, max_nodes_out: 2, canry: 1}\n"),
            "plan.yaml: line 3: $.classes.h100-sxm-80gb.canry: unknown field (typo, or a newer schema?)");
  EXPECT_EQ(err("classes:\n  h100-sxm-80gb: {min_schedulable_gpus: \"120%\", max_nodes_out: 2}\n"),
            "plan.yaml: line 3: $.classes.h100-sxm-80gb.min_schedulable_gpus: \"120%\" is neither a number "
            "of GPUs nor a percentage 0%-100%");
  EXPECT_EQ(err("classes:\n  H100 SXM: {min_schedulable_gpus: 1, max_nodes_out: 1}\n"),
            "plan.yaml: line 3: $.classes.H100 SXM: not a hardware class slug (like h100-sxm-80gb; "
            "docs/hardware-class.md)");
  EXPECT_EQ(err("classes:\n  h100-sxm-80gb: {min_schedulable_gpus: 1, max_nodes_out: 1}\ntraining: "
                "{before_drain: never}\n"),
            "plan.yaml: line 4: $.training.before_drain: \"never\" is not checkpoint or done");
  EXPECT_EQ(error_of([] { parse_plan_policy_yaml("schema: gpuqual.plan/v2\nclasses: {}\n", "plan.yaml"); }),
            "plan.yaml: line 1: $.schema: unsupported schema \"gpuqual.plan/v2\" (this gpuqual reads "
            "gpuqual.plan/v1)");
}

// The policy the Kubernetes component ships (the Argo workflow's plan step reads it) is one.
TEST(PlanPolicyFile, ShippedConfigMapPolicyLoads) {
  const YAML::Node cm = YAML::LoadFile(std::string(GPUQUAL_SOURCE_DIR) +
                                       "/containers/k8s/components/planner/policy-configmap.yaml");
  const PlanPolicy p =
      parse_plan_policy_yaml(cm["data"]["plan.yaml"].as<std::string>(), "policy-configmap.yaml");
  EXPECT_EQ(p.classes.size(), 2u);
  EXPECT_EQ(p.classes.at("h100-sxm-80gb").max_nodes_out, 2);
}

}  // namespace
}  // namespace gpuqual
