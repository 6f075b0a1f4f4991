// The matrix model (core/fleet/matrix.hpp): row states as the issue defines them, de-duplication,
// determinism, and the gpuqual.matrix/v1 YAML/JSON round trip with strict loading.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/base/input_error.hpp"
#include "core/fleet/matrix.hpp"
#include "core/fleet/matrix_io.hpp"
#include "core/record/hardware_class.hpp"
#include "record_builders.hpp"

namespace gpuqual {
namespace {

// A record of `node`; its GPUs are the machine `machine` (default: the node's own GPUs).
RunRecord rec(const std::string& node, const std::string& driver, const std::string& day,
              const std::string& cls = "h200-sxm-141gb", const std::string& machine = "") {
  RunRecord r = testing::make_record(2);
  r.node.k8s_node_name = node;
  r.node.driver_version = driver;
  r.run_id = node + "-" + driver + "-" + day;
  r.started_at = "2026-11-" + day + "T12:00:00Z";
  r.hardware_class.slug = cls;
  for (auto& g : r.gpus) g.uuid = "GPU-" + (machine.empty() ? node : machine) + "-" + std::to_string(g.index);
  return r;
}

MatrixObservation obs(const std::string& node, const std::string& driver, const std::string& day, Outcome o,
                      const std::string& cls = "h200-sxm-141gb") {
  return observe_record(rec(node, driver, day, cls), o);
}

const MatrixRow& row_with(const Matrix& m, const std::string& driver,
                          const std::string& cls = "h200-sxm-141gb") {
  for (const auto& r : m.rows) {
    if (r.hardware_class == cls && r.component("driver_version") && *r.component("driver_version") == driver)
      return r;
  }
  throw std::runtime_error("no row for " + driver);
}

TEST(MatrixStack, ComponentsAreTargetNamesInOrderWithoutGpuqualsOwnLibraries) {
  RunRecord r = testing::make_record(2);
  r.gpus[1].vbios = "96.00.AA.00.01";
  r.node.cublas_version = "13.0.0";
  const StackComponents s = matrix_components(r);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0], (std::pair<std::string, std::string>{"driver_version", "570.133.20"}));
  EXPECT_EQ(s[1].first, "cuda_driver_version");
  EXPECT_EQ(s[4], (std::pair<std::string, std::string>{"vbios", "96.00.99.00.01,96.00.AA.00.01"}));
  for (const auto& [n, v] : s) EXPECT_TRUE(n != "cublas_version" && n != "cuda_runtime_version") << n;
}

// The node's VBIOS versions are a set: the GPUs' order does not split one stack into two rows.
TEST(MatrixStack, VbiosIsASetNotTheGpuOrder) {
  RunRecord a = testing::make_record(3), b = testing::make_record(3);
  a.gpus[0].vbios = "96.00.AA.00.01";  // AA, 99, 99
  b.gpus[2].vbios = "96.00.AA.00.01";  // 99, 99, AA
  EXPECT_EQ(matrix_components(a), matrix_components(b));
  EXPECT_EQ(matrix_components(a).back().second, "96.00.99.00.01,96.00.AA.00.01");
}

// The stack inventory's kubelet version (Node status.nodeInfo) and --platform gpu-operator=...
// are the target's kubernetes and gpu_operator components, without the "v" of their tags.
TEST(MatrixStack, KubernetesAndGpuOperatorComeFromTheStackInventory) {
  RunRecord r = testing::make_record(1);
  StackInventory stack;
  stack.k8s_kubelet_version = StackFact::read("v1.33.4");
  stack.platform["gpu-operator"] = "v25.10.0";
  r.node.stack = stack;
  const StackComponents s = matrix_components(r);
  ASSERT_EQ(s.size(), 7u);
  EXPECT_EQ(s[4], (std::pair<std::string, std::string>{"kubernetes", "1.33.4"}));
  EXPECT_EQ(s[5], (std::pair<std::string, std::string>{"gpu_operator", "25.10.0"}));
  EXPECT_EQ(s[6].first, "vbios");
  // Unread (a run outside Kubernetes): left out, not an empty value.
  r.node.stack->k8s_kubelet_version = StackFact::unread("no Node object");
  EXPECT_EQ(matrix_components(r).size(), 6u);
}

TEST(MatrixStack, ValidatedImagesAreThePassingContainerProbes) {
  RunRecord r = testing::make_record(1);
  CheckResult c;
  c.name = "container_probe";
  c.attributes = {{"train.image", "reg/train:2.4"},
                  {"train.status", "pass"},
                  {"infer.image", "reg/infer:1.0"},
                  {"infer.status", "fail"}};
  r.checks.push_back(c);
  EXPECT_EQ(validated_images(r), std::vector<std::string>{"reg/train:2.4"});
}

TEST(MatrixBuild, StatesFollowTheIssueDefinitions) {
  MatrixBuilder b(2);
  // 550: three nodes pass -> known-good.
  for (const char* n : {"a", "b", "c"}) b.add(obs(n, "550.90.07", "20", Outcome::pass));
  // 570: a passes, b warns (a pass), c fails after passing on 550 -> known-bad.
  b.add(obs("a", "570.133.20", "25", Outcome::pass));
  b.add(obs("b", "570.133.20", "25", Outcome::warn));
  b.add(obs("c", "570.133.20", "26", Outcome::fail));
  // 575: d fails, never seen before; e passes -> mixed.
  b.add(obs("d", "575.57.08", "27", Outcome::fail));
  b.add(obs("e", "575.57.08", "27", Outcome::pass));
  // 580: one passing node, one inconclusive -> unqualified.
  b.add(obs("f", "580.95.05", "28", Outcome::pass));
  b.add(obs("g", "580.95.05", "28", Outcome::inconclusive));
  const Matrix m = b.finish();
  ASSERT_EQ(m.rows.size(), 4u);
  EXPECT_EQ(row_with(m, "550.90.07").state, MatrixState::known_good);
  EXPECT_EQ(row_with(m, "550.90.07").nodes_passed, (std::vector<std::string>{"a", "b", "c"}));
  const MatrixRow& bad = row_with(m, "570.133.20");
  EXPECT_EQ(bad.state, MatrixState::known_bad) << bad.why;
  EXPECT_NE(bad.why.find("c ("), std::string::npos) << bad.why;
  EXPECT_NE(bad.why.find("driver_version 550.90.07 → 570.133.20"), std::string::npos) << bad.why;
  EXPECT_EQ(bad.runs_passed, 2);
  EXPECT_EQ(bad.runs_failed, 1);
  EXPECT_EQ(row_with(m, "575.57.08").state, MatrixState::mixed);
  const MatrixRow& unq = row_with(m, "580.95.05");
  EXPECT_EQ(unq.state, MatrixState::unqualified);
  EXPECT_EQ(unq.runs_inconclusive, 1);
  EXPECT_EQ(unq.first_seen, "2026-11-28T12:00:00Z");
}

TEST(MatrixBuild, AFailureBeforeThePassElsewhereIsNotBlamedOnTheStack) {
  MatrixBuilder b(1);
  b.add(obs("c", "570.133.20", "20", Outcome::fail));  // failed first ...
  b.add(obs("c", "550.90.07", "25", Outcome::pass));   // ... then passed on another stack
  const Matrix m = b.finish();
  EXPECT_EQ(row_with(m, "570.133.20").state, MatrixState::mixed);
  EXPECT_EQ(row_with(m, "550.90.07").state, MatrixState::known_good);
}

TEST(MatrixBuild, APassOnAnotherClassDoesNotMakeAStackKnownBad) {
  MatrixBuilder b(1);
  b.add(obs("x", "550.90.07", "20", Outcome::pass, "h100-sxm-80gb"));
  b.add(obs("x", "570.133.20", "25", Outcome::fail));
  EXPECT_EQ(row_with(b.finish(), "570.133.20").state, MatrixState::mixed);
}

TEST(MatrixBuild, MinNodesAndTheSameRunTwice) {
  MatrixBuilder b(3);
  b.add(obs("a", "570.133.20", "20", Outcome::pass));
  b.add(obs("a", "570.133.20", "20", Outcome::pass));  // the same run id: one run
  b.add(obs("b", "570.133.20", "21", Outcome::pass));
  Matrix m = b.finish();
  EXPECT_EQ(m.records, 2u);
  EXPECT_EQ(m.rows.at(0).state, MatrixState::unqualified);
  EXPECT_NE(m.rows.at(0).why.find("fewer than the 3"), std::string::npos);
}

TEST(MatrixBuild, InputOrderDoesNotChangeTheBytes) {
  std::vector<MatrixObservation> all = {
      obs("a", "550.90.07", "20", Outcome::pass), obs("b", "550.90.07", "21", Outcome::pass),
      obs("a", "570.133.20", "25", Outcome::fail), obs("z", "570.133.20", "25", Outcome::pass)};
  MatrixBuilder one, two;
  for (const auto& o : all) one.add(o);
  for (auto it = all.rbegin(); it != all.rend(); ++it) two.add(*it);
  EXPECT_EQ(matrix_to_yaml(one.finish()), matrix_to_yaml(two.finish()));
}

// Every order of one set of records gives the same bytes: the known-bad "why" (a node that passed
// on two earlier stacks), a machine under two names, a run in two files, ties in time.
TEST(MatrixBuild, EveryPermutationOfTheRecordsGivesTheSameBytes) {
  std::vector<MatrixObservation> all = {
      obs("a", "550.90.07", "20", Outcome::pass), obs("b", "550.90.07", "20", Outcome::pass),
      obs("a", "560.35.03", "20", Outcome::pass),  // a passed on two stacks, the same day
      obs("b", "560.35.03", "22", Outcome::pass), obs("a", "570.133.20", "25", Outcome::fail),
      obs("b", "570.133.20", "25", Outcome::fail)};
  all.push_back(
      observe_record(rec("a2", "570.133.20", "26", "h200-sxm-141gb", "a"), Outcome::fail));  // a renamed
  MatrixObservation partial = all[3];
  partial.complete = false;
  partial.outcome = Outcome::fail;
  all.push_back(partial);  // b's 560 run again, from an interrupted snapshot
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 rng(31);
  std::string first;
  for (int trial = 0; trial < 400; ++trial) {
    MatrixBuilder b(2);
    for (std::size_t i : order) b.add(all[i]);
    const std::string bytes = matrix_to_yaml(b.finish());
    if (first.empty()) first = bytes;
    ASSERT_EQ(bytes, first) << "trial " << trial;
    trial % 2 ? std::reverse(order.begin(), order.end()) : std::shuffle(order.begin(), order.end(), rng);
  }
  EXPECT_NE(first.find("a (also a2), b ("), std::string::npos) << first;
  // a passed on 550 and 560 the same day: the tie goes to the first row in order.
  EXPECT_NE(first.find("driver_version 550.90.07 → 570.133.20"), std::string::npos) << first;
  MatrixBuilder b(2);
  for (const auto& o : all) b.add(o);
  const Matrix m = b.finish();
  EXPECT_EQ(row_with(m, "560.35.03").runs_failed, 0) << "the interrupted copy of b's 560 run must lose";
  EXPECT_EQ(row_with(m, "560.35.03").state, MatrixState::known_good);
}

// The known-bad "why" diffs against the stack the node started passing on last before it failed.
TEST(MatrixBuild, TheStackANodeCameFromIsTheOneItPassedOnLast) {
  const std::vector<MatrixObservation> all = {obs("a", "550.90.07", "20", Outcome::pass),
                                              obs("a", "560.35.03", "22", Outcome::pass),
                                              obs("a", "570.133.20", "25", Outcome::fail)};
  for (bool reversed : {false, true}) {
    MatrixBuilder b(1);
    if (reversed) {
      for (auto it = all.rbegin(); it != all.rend(); ++it) b.add(*it);
    } else {
      for (const auto& o : all) b.add(o);
    }
    const Matrix m = b.finish();
    const MatrixRow& bad = row_with(m, "570.133.20");
    EXPECT_NE(bad.why.find("driver_version 560.35.03 → 570.133.20"), std::string::npos) << bad.why;
  }
}

TEST(MatrixBuild, OneMachineUnderSeveralNodeNamesCountsOnce) {
  MatrixBuilder b(2);
  b.add(observe_record(rec("node-a", "570.133.20", "20"), Outcome::pass));
  b.add(observe_record(rec("pod-7", "570.133.20", "21", "h200-sxm-141gb", "node-a"), Outcome::pass));
  // The same box after losing a GPU: one UUID in common is the same machine.
  RunRecord lost = rec("pod-9", "570.133.20", "22", "h200-sxm-141gb", "node-a");
  lost.gpus.pop_back();
  b.add(observe_record(lost, Outcome::pass));
  Matrix m = b.finish();
  const MatrixRow& r = row_with(m, "570.133.20");
  EXPECT_EQ(r.state, MatrixState::unqualified) << r.why;
  EXPECT_EQ(r.nodes_passed, (std::vector<std::string>{"node-a (also pod-7, pod-9)"}));
  EXPECT_EQ(r.runs_passed, 3);

  // A machine that passed on one stack under one name and failed on the next under another: the
  // stack is to blame, as for one name.
  MatrixBuilder k(1);
  k.add(observe_record(rec("node-a", "550.90.07", "20"), Outcome::pass));
  k.add(observe_record(rec("pod-7", "570.133.20", "25", "h200-sxm-141gb", "node-a"), Outcome::fail));
  EXPECT_EQ(row_with(k.finish(), "570.133.20").state, MatrixState::known_bad);
}

// A record whose GPUs are all unread names no machine: two such passes under two node names may
// be one box, so they count toward no node (they still count as passing runs, and fail as any).
TEST(MatrixBuild, RunsThatNameNoGpuCountTowardNoNode) {
  auto unnamed_passes = [](MatrixBuilder& b) {
    for (const char* node : {"node-a", "node-b"}) {
      RunRecord r = rec(node, "570.133.20", "20");
      for (auto& g : r.gpus) g.uuid = unread_gpu_uuid(g);
      ASSERT_TRUE(observe_record(r, Outcome::pass).gpu_keys.empty());
      b.add(observe_record(r, Outcome::pass));
    }
  };
  MatrixBuilder b(2);
  unnamed_passes(b);
  Matrix m = b.finish();
  const MatrixRow& r = row_with(m, "570.133.20");
  EXPECT_EQ(r.state, MatrixState::unqualified) << r.why;
  EXPECT_TRUE(r.nodes_passed.empty());
  EXPECT_EQ(r.runs_passed, 2);
  EXPECT_NE(r.why.find("2 passing runs named no GPU (every UUID unread) and count toward no node"),
            std::string::npos)
      << r.why;
  // With two machines that name their GPUs the row is known-good, the unnamed runs aside.
  MatrixBuilder named(2);
  unnamed_passes(named);
  named.add(obs("node-c", "570.133.20", "21", Outcome::pass));
  named.add(obs("node-d", "570.133.20", "21", Outcome::pass));
  EXPECT_EQ(row_with(named.finish(), "570.133.20").state, MatrixState::known_good);
}

TEST(MatrixBuild, IncompleteRunsNeverCountTowardKnownGood) {
  MatrixBuilder b(2);
  RunRecord killed = rec("b", "570.133.20", "21");
  killed.complete = false;
  CheckResult c;
  c.name = "container_probe";
  c.attributes = {{"train.image", "reg/train:2.4"}, {"train.status", "pass"}};
  killed.checks.push_back(c);
  b.add(obs("a", "570.133.20", "20", Outcome::pass));
  b.add(observe_record(killed, Outcome::pass));
  MatrixObservation direct = obs("c", "570.133.20", "22", Outcome::warn);
  direct.complete = false;  // the builder holds the rule, not only observe_record
  b.add(direct);
  Matrix m = b.finish();
  const MatrixRow& r = row_with(m, "570.133.20");
  EXPECT_EQ(r.state, MatrixState::unqualified) << r.why;
  EXPECT_EQ(r.nodes_passed, std::vector<std::string>{"a"});
  EXPECT_EQ(r.runs_inconclusive, 2);
  EXPECT_TRUE(r.images.empty());  // an interrupted run validated no image
  // What an interrupted run failed still counts.
  MatrixBuilder f(1);
  MatrixObservation failed = obs("d", "570.133.20", "22", Outcome::fail);
  failed.complete = false;
  f.add(failed);
  EXPECT_EQ(f.finish().rows.at(0).state, MatrixState::mixed);
}

TEST(MatrixBuild, TheCompleteRecordOfARunWinsInEitherOrder) {
  MatrixObservation snapshot = obs("a", "570.133.20", "20", Outcome::pass);
  snapshot.complete = false;  // the snapshot an interrupted run left, before its failing check
  const MatrixObservation final_record = obs("a", "570.133.20", "20", Outcome::fail);
  MatrixObservation clean_final = final_record;
  clean_final.outcome = Outcome::pass;
  for (bool snapshot_first : {true, false}) {
    MatrixBuilder b(1);
    b.add(snapshot_first ? snapshot : final_record);
    b.add(snapshot_first ? final_record : snapshot);
    const Matrix m = b.finish();
    EXPECT_EQ(m.records, 1u);
    EXPECT_EQ(m.rows.at(0).runs_failed, 1) << snapshot_first;
    EXPECT_EQ(m.rows.at(0).runs_inconclusive, 0) << snapshot_first;
    // Two complete records of one run that disagree: the failure is never hidden.
    MatrixBuilder c(1);
    c.add(snapshot_first ? clean_final : final_record);
    c.add(snapshot_first ? final_record : clean_final);
    EXPECT_EQ(c.finish().rows.at(0).runs_failed, 1) << snapshot_first;
  }
}

TEST(MatrixIo, YamlAndJsonLoadBackToTheSameMatrix) {
  MatrixBuilder b(2);
  b.add(obs("a", "550.90.07", "20", Outcome::pass));
  b.add(obs("yes", "550.90.07", "21", Outcome::pass));  // a node YAML would read as a boolean
  const Matrix m = b.finish();
  const std::string yaml = matrix_to_yaml(m);
  const Matrix y = parse_matrix(yaml, "m.yaml");
  const Matrix j = parse_matrix(matrix_to_json(m), "m.json");
  EXPECT_EQ(matrix_to_json(y), matrix_to_json(m));
  EXPECT_EQ(matrix_to_json(j), matrix_to_json(m));
  EXPECT_EQ(y.rows.at(0).nodes_passed, (std::vector<std::string>{"a", "yes"}));
  EXPECT_EQ(y.rows.at(0).state, MatrixState::known_good);
}

TEST(MatrixIo, StrictLoaderNamesFileLineAndPath) {
  MatrixBuilder b(1);
  b.add(obs("a", "550.90.07", "20", Outcome::pass));
  const std::string good = matrix_to_yaml(b.finish());
  struct Case {
    std::string from, to, expect;
  };
  const std::vector<Case> cases = {
      {"\"known-good\"", "\"great\"", "$.rows[0].state: unknown state \"great\""},
      {"schema: \"gpuqual.matrix/v1\"", "schema: \"gpuqual.matrix/v9\"", "unsupported schema"},
      {"min_nodes: 1", "min_nodes: 0", "$.min_nodes"},
      {"    first_seen:", "    colour: \"red\"\n    first_seen:", "colour"},
      {"      kernel:", "      kernal:", "$.rows[0].stack.kernal: unknown component \"kernal\""},
  };
  for (const auto& c : cases) {
    std::string text = good;
    const auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    try {
      parse_matrix(text, "m.yaml");
      ADD_FAILURE() << "accepted: " << c.to;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("m.yaml: line "), std::string::npos) << what;
      EXPECT_NE(what.find(c.expect), std::string::npos) << what;
    }
  }
}

// A rack's node counts toward known-good only when its whole rack passed on the stack.
MatrixObservation rack_obs(const std::string& node, const std::string& driver, const std::string& day,
                           Outcome o, const std::string& clique) {
  RunRecord r = rec(node, driver, day, "gb200-186gb");
  r.node.k8s_labels[kCliqueLabel] = clique;
  return observe_record(r, o);
}

TEST(MatrixRacks, ARacksNodesCountOnlyWhenTheWholeRackPassed) {
  std::vector<MatrixObservation> seen = {
      // rack-a (two partitions): all four nodes seen; on the new driver only two of them ran.
      rack_obs("a1", "570.195.03", "10", Outcome::pass, "rack-a.1"),
      rack_obs("a2", "570.195.03", "10", Outcome::pass, "rack-a.1"),
      rack_obs("a3", "570.195.03", "10", Outcome::pass, "rack-a.2"),
      rack_obs("a4", "570.195.03", "10", Outcome::pass, "rack-a.2"),
      rack_obs("a1", "580.95.05", "12", Outcome::pass, "rack-a.1"),
      rack_obs("a2", "580.95.05", "12", Outcome::pass, "rack-a.1"),
  };
  MatrixBuilder b(2);
  for (auto o : seen) b.add(std::move(o));
  const Matrix m = b.finish();
  const MatrixRow& old_row = row_with(m, "570.195.03", "gb200-186gb");
  EXPECT_EQ(old_row.state, MatrixState::known_good) << old_row.why;
  const MatrixRow& part = row_with(m, "580.95.05", "gb200-186gb");
  EXPECT_EQ(part.state, MatrixState::unqualified) << part.why;
  EXPECT_EQ(part.nodes_passed, (std::vector<std::string>{"a1", "a2"}));  // the facts stay
  EXPECT_NE(part.why.find("passed on 2 nodes (0 counting), fewer than the 2 --min-nodes asks"),
            std::string::npos)
      << part.why;
  EXPECT_NE(part.why.find("a rack counts only whole, and these passed in part: rack-a (2 of 4 nodes)"),
            std::string::npos)
      << part.why;

  // The rest of the rack passes on the new driver: the rack counts, in any order of the records.
  seen.push_back(rack_obs("a3", "580.95.05", "13", Outcome::pass, "rack-a.2"));
  seen.push_back(rack_obs("a4", "580.95.05", "13", Outcome::pass, "rack-a.2"));
  std::mt19937 rng(7);
  std::string first_why;
  for (int round = 0; round < 3; ++round) {
    std::shuffle(seen.begin(), seen.end(), rng);
    MatrixBuilder w(2);
    for (auto o : seen) w.add(o);
    const Matrix whole = w.finish();
    const MatrixRow& r = row_with(whole, "580.95.05", "gb200-186gb");
    EXPECT_EQ(r.state, MatrixState::known_good) << r.why;
    if (round == 0) first_why = r.why;
    EXPECT_EQ(r.why, first_why);
  }
}

TEST(MatrixRacks, WithoutARackLabelNodesCountAlone) {
  RunRecord r = rec("a1", "580.95.05", "12", "gb200-186gb");
  r.node.k8s_labels[kCliqueLabel] = "rack-a.1";
  EXPECT_EQ(observe_record(r, Outcome::pass).rack, "rack-a");
  EXPECT_EQ(observe_record(r, Outcome::pass, "").rack, "");
  EXPECT_EQ(observe_record(r, Outcome::pass, "example.com/rack").rack, "");
}

}  // namespace
}  // namespace gpuqual
