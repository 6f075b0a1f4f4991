// `gpuqual plan` reads the cluster as Kubernetes does (docs/plan.md): a node without a
// Ready condition, required node affinity with Gt/Lt, matchFields and an empty term when evicted
// pods are placed again, bare pods that `kubectl drain` refuses, and a policy class the cluster
// does not have. The clusters are read through the real readers from the API's JSON: nodes in
// the shape of tests/data/plan/example/nodes.json (`kubectl get nodes -o json` of GFD-labelled
// nodes), conditions as the kubelet posts them (core/v1 NodeCondition), pods and their
// ownerReferences as `kubectl get pods -o json` prints them (metav1.OwnerReference).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cli_helpers.hpp"
#include "core/fleet/plan.hpp"
#include "core/fleet/plan_cluster_json.hpp"
#include "core/fleet/plan_json.hpp"
#include "core/fleet/plan_policy.hpp"

namespace gpuqual {
namespace {

const char* kClass = "h200-sxm-141gb";

nlohmann::json node_json(const std::string& name, const std::string& driver_major = "570") {
  auto n = nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "", "labels": {"kubernetes.io/os": "linux",
      "nvidia.com/gpu.product": "NVIDIA-H200", "nvidia.com/gpu.memory": "143771", "nvidia.com/gpu.count": "8",
      "nvidia.com/gpu.present": "true", "nvidia.com/gpu.family": "hopper"}},
    "spec": {"taints": [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}]},
    "status": {"allocatable": {"cpu": "223500m", "nvidia.com/gpu": "8", "pods": "110"},
      "conditions": [
        {"lastHeartbeatTime": "2026-12-01T09:00:00Z", "lastTransitionTime": "2026-10-01T08:01:00Z",
         "message": "kubelet has sufficient memory available", "reason": "KubeletHasSufficientMemory",
         "status": "False", "type": "MemoryPressure"},
        {"lastHeartbeatTime": "2026-12-01T09:00:00Z", "lastTransitionTime": "2026-10-01T08:01:00Z",
         "message": "kubelet is posting ready status", "reason": "KubeletReady",
         "status": "True", "type": "Ready"}]}})");
  n["metadata"]["name"] = name;
  n["metadata"]["labels"]["kubernetes.io/hostname"] = name;
  n["metadata"]["labels"]["nvidia.com/cuda.driver.major"] = driver_major;
  return n;
}

// A running pod of `gpus` GPUs on `node`, owned by a ReplicaSet (its controller) unless `owners`
// says otherwise, tolerating the device plugin's taint.
nlohmann::json pod_json(const std::string& name, const std::string& node, int gpus,
                        nlohmann::json owners = nullptr) {
  auto p = nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "", "namespace": "serving", "labels": {"app": "vllm"}},
    "spec": {"nodeName": "", "containers": [{"name": "main", "image": "vllm/vllm-openai:v0.6.4",
      "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
      "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
    "status": {"phase": "Running"}})");
  p["metadata"]["name"] = name;
  p["spec"]["nodeName"] = node;
  p["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = std::to_string(gpus);
  if (owners.is_null()) {
    owners = nlohmann::json::parse(R"([{"apiVersion": "apps/v1", "kind": "ReplicaSet",
      "name": "vllm-6c8d5b7f9", "uid": "1b2c3d4e-0000-4000-8000-000000000010",
      "controller": true, "blockOwnerDeletion": true}])");
  }
  if (!owners.empty()) p["metadata"]["ownerReferences"] = owners;
  return p;
}

void require_affinity(nlohmann::json& pod, const char* required) {
  pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      nlohmann::json::parse(required);
}

Cluster read_cluster_json(const std::vector<nlohmann::json>& nodes, const std::vector<nlohmann::json>& pods) {
  nlohmann::json n = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", nodes}};
  nlohmann::json p = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", pods}};
  return {nodes_from_json(n, "nodes.json"), pods_from_json(p, "pods.json"), {}};
}

PlanPolicy policy(int floor, int max_out, const std::string& extra_classes = "") {
  return parse_plan_policy_yaml(std::string("schema: gpuqual.plan/v1\nclasses:\n  ") + kClass +
                                    ": {min_schedulable_gpus: " + std::to_string(floor) +
                                    ", max_nodes_out: " + std::to_string(max_out) + ", canary: 1}\n" +
                                    extra_classes,
                                "plan.yaml");
}

const NodeFate& fate(const Plan& p, const std::string& node) {
  for (const auto& f : p.nodes) {
    if (f.node == node) return f;
  }
  throw std::runtime_error("no fate for " + node);
}

const PlannedEviction& eviction(const Plan& p, const std::string& pod) {
  for (const auto& w : p.waves) {
    for (const auto& e : w.evictions) {
      if (e.pod == pod) return e;
    }
  }
  throw std::runtime_error("no eviction of " + pod);
}

// Kubernetes treats a node without a Ready condition as Unknown: not schedulable capacity. With
// 32 GPUs counted, the floor of 24 let one node at a time go; with the 24 that are Ready, none of
// the Ready nodes may go, and the one without the condition (its GPUs leave nothing) may.
TEST(PlanKubernetes, NodeWithoutReadyConditionIsNoCapacity) {
  std::vector<nlohmann::json> nodes = {node_json("a"), node_json("b"), node_json("c"), node_json("d")};
  nodes[3]["status"]["conditions"].erase(1);  // d: MemoryPressure only, no Ready
  const Cluster c = read_cluster_json(nodes, {});
  EXPECT_FALSE(c.nodes[3].ready);
  EXPECT_TRUE(c.nodes[0].ready);
  const Plan p = make_plan(c, policy(24, 2), {});
  EXPECT_EQ(p.classes.at(0).schedulable, 24);
  EXPECT_EQ(fate(p, "d").state, NodeState::planned);
  for (const char* n : {"a", "b", "c"}) {
    EXPECT_EQ(fate(p, n).state, NodeState::deferred) << n;
    EXPECT_EQ(fate(p, n).reasons.at(0),
              "capacity would fall below the floor: 16 of 24 schedulable h200-sxm-141gb GPUs would be left, "
              "the floor is 24");
  }
  ASSERT_EQ(p.waves.size(), 1u);
  EXPECT_EQ(p.waves[0].classes.at(0).gpus_out, 0);
  EXPECT_EQ(p.waves[0].classes.at(0).schedulable_left, 24);
  EXPECT_EQ(p.exit_code, 2);
  // Status Unknown (the node controller's, when the kubelet stops posting) reads the same.
  nodes[3] = node_json("d");
  nodes[3]["status"]["conditions"][1]["status"] = "Unknown";
  EXPECT_FALSE(read_cluster_json(nodes, {}).nodes[3].ready);
  nodes[3].erase("status");  // no status at all
  nodes[3]["status"]["allocatable"]["nvidia.com/gpu"] = "8";
  EXPECT_FALSE(read_cluster_json(nodes, {}).nodes[3].ready);
}

// Waves: b (no pods, first by name), then c, then a, whose pod is placed again on an upgraded
// node, b before c, unless its required node affinity excludes b.
Plan plan_with_pinned_pod(const char* required) {
  std::vector<nlohmann::json> pods = {pod_json("vllm-0", "a", 4)};
  require_affinity(pods[0], required);
  return make_plan(
      read_cluster_json({node_json("a", "580"), node_json("b", "570"), node_json("c", "580")}, pods),
      policy(0, 1), {});
}

TEST(PlanKubernetes, GtLtAffinityIsEvaluatedNotAnInputError) {
  Plan p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchExpressions": [
      {"key": "nvidia.com/cuda.driver.major", "operator": "Gt", "values": ["575"]}]}]})");
  EXPECT_EQ(p.exit_code, 0) << p.summary;
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "c");
  p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchExpressions": [
      {"key": "nvidia.com/cuda.driver.major", "operator": "Lt", "values": ["575"]}]}]})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "b");
  // A label that is no integer matches nothing: the pod fits nowhere.
  p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchExpressions": [
      {"key": "nvidia.com/gpu.product", "operator": "Gt", "values": ["0"]}]}]})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "");
}

TEST(PlanKubernetes, MatchFieldsPinThePlacement) {
  Plan p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchFields": [
      {"key": "metadata.name", "operator": "In", "values": ["c"]}]}]})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "c");
  // Pinned to its own node, which is the one being drained: it fits nowhere else.
  p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchFields": [
      {"key": "metadata.name", "operator": "In", "values": ["a"]}]}]})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "");
  EXPECT_FALSE(p.waves.at(static_cast<std::size_t>(fate(p, "a").wave)).fits());
  p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchFields": [
      {"key": "metadata.name", "operator": "NotIn", "values": ["b"]}]}]})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "c");
}

TEST(PlanKubernetes, AnEmptyTermMatchesNoNode) {
  Plan p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchExpressions": []}]})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "");
  p = plan_with_pinned_pod(R"({"nodeSelectorTerms": []})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "");
  // Terms are ORed: an empty one beside one that matches leaves the match.
  p = plan_with_pinned_pod(R"({"nodeSelectorTerms": [{"matchExpressions": []},
      {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]}]})");
  EXPECT_EQ(eviction(p, "serving/vllm-0").placed_on, "b");
}

// `kubectl drain` refuses a pod that declares no controller unless --force, and nothing would
// recreate it: its node waits, with that reason. DaemonSet pods stay where they are, as before;
// a finished bare pod is no obstacle (drain deletes finished pods).
TEST(PlanKubernetes, BarePodsHoldTheirNode) {
  std::vector<nlohmann::json> pods = {
      pod_json("debug", "a", 1, nlohmann::json::array()),
      pod_json("loose", "b", 1, nlohmann::json::parse(R"([{"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "name": "orphaned", "uid": "1b2c3d4e-0000-4000-8000-000000000011"}])")),
      pod_json("device-plugin", "c", 0, nlohmann::json::parse(R"([{"apiVersion": "apps/v1",
        "kind": "DaemonSet", "name": "nvidia-device-plugin-daemonset",
        "uid": "1b2c3d4e-0000-4000-8000-000000000012", "controller": true, "blockOwnerDeletion": true}])")),
      pod_json("done", "d", 1, nlohmann::json::array())};
  pods[3]["status"]["phase"] = "Succeeded";
  const Plan p =
      make_plan(read_cluster_json({node_json("a"), node_json("b"), node_json("c"), node_json("d")}, pods),
                policy(0, 4), {});
  EXPECT_EQ(fate(p, "a").state, NodeState::deferred);
  EXPECT_EQ(
      fate(p, "a").reasons,
      std::vector<std::string>{"pod serving/debug is a bare pod (no ownerReferences): kubectl drain refuses "
                               "it without --force and nothing would recreate it; it holds the node"});
  EXPECT_EQ(fate(p, "b").state, NodeState::deferred);
  EXPECT_EQ(
      fate(p, "b").reasons,
      std::vector<std::string>{"pod serving/loose declares no controller (no ownerReference with "
                               "controller: true): kubectl drain refuses it without --force and nothing "
                               "would recreate it; it holds the node"});
  EXPECT_EQ(fate(p, "c").state, NodeState::planned);
  EXPECT_EQ(fate(p, "d").state, NodeState::planned);
  for (const auto& w : p.waves) EXPECT_TRUE(w.evictions.empty()) << "wave " << w.index;
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.summary.find("a: pod serving/debug is a bare pod"), std::string::npos) << p.summary;
}

TEST(PlanKubernetes, PolicyClassNotInTheClusterWarnsAndChangesNothingElse) {
  const Cluster c = read_cluster_json({node_json("a"), node_json("b")}, {});
  const Plan plain = make_plan(c, policy(8, 1), {});
  const Plan warned =
      make_plan(c, policy(8, 1, "  b200-sxm-180gb: {min_schedulable_gpus: 16, max_nodes_out: 1}\n"), {});
  EXPECT_TRUE(plain.warnings.empty());
  EXPECT_EQ(warned.warnings, std::vector<std::string>{
                                 "policy class b200-sxm-180gb is not in the cluster: no GPU node has that "
                                 "class (its floor and limits apply to nothing; is the slug right?)"});
  const nlohmann::json plain_json = plan_to_json(plain);
  EXPECT_FALSE(plain_json.contains("warnings"));  // the plan-result file as before
  nlohmann::json warned_json = plan_to_json(warned);
  EXPECT_EQ(warned_json.at("warnings"), nlohmann::json(warned.warnings));
  warned_json.erase("warnings");
  EXPECT_EQ(warned_json, plain_json);
}

class PlanKubernetesCli : public testing::ScratchDirTest {
 protected:
  PlanKubernetesCli() : ScratchDirTest("plan-k8s-cli") {}
};

// On the command line the warning is on stderr, in every format; stdout is byte for byte what it
// is without the extra class.
TEST_F(PlanKubernetesCli, WarningGoesToStderrStdoutUnchanged) {
  const std::string ex = std::string(GPUQUAL_SOURCE_DIR) + "/tests/data/plan/example/";
  std::ifstream in(ex + "policy.yaml");
  std::string policy_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string marker = "training:";
  ASSERT_NE(policy_text.find(marker), std::string::npos);
  policy_text.insert(policy_text.find(marker),
                     "  b200-sxm-180gb: {min_schedulable_gpus: 8, max_nodes_out: 1}\n");
  std::ofstream(scratch_ / "policy.yaml") << policy_text;
  const std::string cluster = "plan --nodes " + testing::shell_quote(ex + "nodes.json") + " --pods " +
                              testing::shell_quote(ex + "pods.json") + " --pdbs " +
                              testing::shell_quote(ex + "pdbs.json") + " --policy ";
  for (const char* format : {"table", "json", "markdown"}) {
    SCOPED_TRACE(format);
    const auto before = testing::run_cli(
        cluster + testing::shell_quote(ex + "policy.yaml") + " --format " + format, scratch_);
    const auto after = testing::run_cli(
        cluster + testing::shell_quote((scratch_ / "policy.yaml").string()) + " --format " + format,
        scratch_);
    EXPECT_EQ(after.out, before.out);
    EXPECT_EQ(after.code, before.code);
    EXPECT_EQ(before.err.find("warning"), std::string::npos) << before.err;
    EXPECT_NE(after.err.find("gpuqual plan: warning: policy class b200-sxm-180gb is not in the cluster"),
              std::string::npos)
        << after.err;
  }
}

}  // namespace
}  // namespace gpuqual
