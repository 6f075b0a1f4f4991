// The Node condition GpuQualified (core/verdict/node_condition.hpp, `gpuqual node-condition`):
// status from the exit code, the deciding finding as a CamelCase reason, the message, the
// transition time kept while the status holds, and consecutive passes counted with the structured
// annotation gpuqual.io/consecutive-passes, never from the message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
#include "core/verdict/node_condition.hpp"

using namespace gpuqual;
using gpuqual::testing::run_cli;
using gpuqual::testing::shell_quote;
using nlohmann::json;

namespace {

json verdict_with(const json& findings, const json& metrics, const json& checks) {
  return {{"summary", "gpuqual: from the verdict"},
          {"findings", findings},
          {"metrics", metrics},
          {"checks", checks}};
}

json finding(const std::string& code, const std::string& status) {
  return {{"check", "health"}, {"finding", {{"code", code}}}, {"status", status}};
}

json node_with(const json& condition, const json& annotation = nullptr) {
  json node = {{"metadata", {{"name", "gpu-node-12"}}},
               {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  if (!condition.is_null()) node["status"]["conditions"].push_back(condition);
  if (!annotation.is_null()) node["metadata"]["annotations"][kConsecutivePassesAnnotation] = annotation;
  return node;
}

json condition(const std::string& status, const std::string& heartbeat, const std::string& transition) {
  return {{"type", "GpuQualified"},
          {"status", status},
          {"reason", "X"},
          {"message", "m"},
          {"lastHeartbeatTime", heartbeat},
          {"lastTransitionTime", transition}};
}

std::string count(std::size_t passes, const std::string& heartbeat) {
  return json{{"passes", passes}, {"heartbeat", heartbeat}}.dump();
}

ConditionVerdict pass() { return *condition_from_exit(0, "gpuqual: PASS", nullptr); }
ConditionVerdict fail() { return *condition_from_exit(1, "gpuqual: FAIL", nullptr); }

// The node after `w` was patched onto it, as the API server merges it.
json patched(const ConditionWrite& w) {
  const json patch = json::parse(condition_patch(w).dump());
  return node_with(patch["status"]["conditions"][0],
                   patch["metadata"]["annotations"][kConsecutivePassesAnnotation]);
}

}  // namespace

TEST(NodeConditionReason, CamelCaseOfCodesMetricsAndChecks) {
  EXPECT_EQ(camel_case_reason("ecc.uncorrected_volatile"), "EccUncorrectedVolatile");
  EXPECT_EQ(camel_case_reason("pcie.error"), "PcieError");
  EXPECT_EQ(camel_case_reason("gemm error"), "GemmError");
  EXPECT_EQ(camel_case_reason("nvlink_CRC--count"), "NvlinkCRCCount");  // the rest of a word is kept
  EXPECT_EQ(camel_case_reason("QualificationFailed"), "QualificationFailed");
  // A reason starts with a letter: a code that does not gets "Code" first.
  EXPECT_EQ(camel_case_reason("2bit.flip"), "Code2bitFlip");
  EXPECT_EQ(camel_case_reason("._9"), "Code9");
  EXPECT_EQ(camel_case_reason("..."), "Code");
  EXPECT_EQ(camel_case_reason("hbm.ätzend"), "HbmTzend");  // non-ASCII bytes separate words
  EXPECT_TRUE(is_camel_case("QualificationExpired"));
  EXPECT_TRUE(is_camel_case("x9"));
  EXPECT_FALSE(is_camel_case("not camel"));
  EXPECT_FALSE(is_camel_case("9Lives"));
  EXPECT_FALSE(is_camel_case(""));
}

TEST(NodeConditionVerdict, StatusFromTheExitCode) {
  const auto t = condition_from_exit(0, "gpuqual: PASS", nullptr);
  ASSERT_TRUE(t);
  EXPECT_EQ((std::vector<std::string>{t->status, t->reason, t->message}),
            (std::vector<std::string>{"True", "Qualified", "gpuqual: PASS"}));
  const auto f = condition_from_exit(1, "", nullptr);
  ASSERT_TRUE(f);
  EXPECT_EQ((std::vector<std::string>{f->status, f->reason, f->message}),
            (std::vector<std::string>{"False", "QualificationFailed", "gpuqual exited 1"}));
  for (int rc : {2, 137, 255}) {
    const auto u = condition_from_exit(rc, "", nullptr);
    ASSERT_TRUE(u);
    EXPECT_EQ(u->status, "Unknown") << rc;
    EXPECT_EQ(u->reason, "QualificationInconclusive") << rc;
    EXPECT_EQ(u->message, "gpuqual exited " + std::to_string(rc));
  }
  // Exit 3 is about the Job, not the node: nothing to write.
  EXPECT_FALSE(condition_from_exit(3, "gpuqual: usage", nullptr));
}

TEST(NodeConditionVerdict, TheDecidingFindingMetricOrCheck) {
  const json v =
      verdict_with(json::array({finding("ecc.corrected", "warn"), finding("ecc.uncorrected_volatile", "fail"),
                                finding("pcie.error", "error")}),
                   json::array({{{"metric", "gemm_tflops"}, {"status", "fail"}}}),
                   json::array({{{"check", "memtest"}, {"status", "skip"}}}));
  EXPECT_EQ(condition_from_exit(1, "s", &v)->reason, "EccUncorrectedVolatile");  // a finding before a metric
  EXPECT_EQ(condition_from_exit(2, "s", &v)->reason, "PcieError");
  const json metric_only =
      verdict_with(json::array(), json::array({{{"metric", "hbm.bandwidth"}, {"status", "fail"}}}),
                   json::array({{{"check", "gemm"}, {"status", "fail"}}}));
  EXPECT_EQ(condition_from_exit(1, "s", &metric_only)->reason, "HbmBandwidth");
  const json check_only =
      verdict_with(json::array(), json::array(), json::array({{{"check", "gemm"}, {"status", "fail"}}}));
  EXPECT_EQ(condition_from_exit(1, "s", &check_only)->reason, "GemmFail");
  // Unknown: an error or inconclusive row first, else a skip, else the generic reason.
  const json skip_only =
      verdict_with(json::array(), json::array(), json::array({{{"check", "nccl"}, {"status", "skip"}}}));
  EXPECT_EQ(condition_from_exit(2, "s", &skip_only)->reason, "NcclSkip");
  const json inconclusive = verdict_with(
      json::array(), json::array({{{"metric", "1.link"}, {"status", "inconclusive"}}}), json::array());
  EXPECT_EQ(condition_from_exit(2, "s", &inconclusive)->reason, "Code1Link");
  // A pass never names a finding; the summary line wins over the verdict's own summary.
  EXPECT_EQ(condition_from_exit(0, "", &v)->reason, "Qualified");
  EXPECT_EQ(condition_from_exit(0, "", &v)->message, "gpuqual: from the verdict");
  EXPECT_EQ(condition_from_exit(0, "line", &v)->message, "line");
}

TEST(NodeConditionVerdict, AVerdictThatIsNoObjectOrOddlyShapedLeavesTheExitCodeToDecide) {
  const json text = "gpuqual compare: error";
  EXPECT_EQ(condition_from_exit(1, "", &text)->reason, "QualificationFailed");
  EXPECT_EQ(condition_from_exit(1, "", &text)->message, "gpuqual exited 1");
  const json odd = {{"findings", "none"},
                    {"metrics", json::array({1, {{"metric", 7}, {"status", "fail"}}})},
                    {"checks", json::array({{{"check", ""}, {"status", "fail"}}, {{"status", "fail"}}})},
                    {"summary", 3}};
  EXPECT_EQ(condition_from_exit(1, "", &odd)->reason, "QualificationFailed");
}

TEST(NodeConditionVerdict, UnknownModeNeedsACamelCaseReason) {
  const ConditionVerdict u = unknown_condition("QualificationExpired", "last qualified 32 d ago");
  EXPECT_EQ((std::vector<std::string>{u.status, u.reason, u.message}),
            (std::vector<std::string>{"Unknown", "QualificationExpired", "last qualified 32 d ago"}));
  EXPECT_THROW(unknown_condition("not camel", "m"), InputError);
  EXPECT_THROW(unknown_condition("Expired", ""), InputError);
}

TEST(NodeConditionHistory, ANodeWithoutAConditionQualifiesOnItsFirstPass) {
  const ConditionWrite w =
      next_condition(pass(), node_condition_state(node_with(nullptr), "n.json"), "2026-12-03T10:00:00Z", 3);
  EXPECT_EQ((std::vector<std::string>{w.condition.status, w.condition.reason, w.condition.last_heartbeat,
                                      w.condition.last_transition}),
            (std::vector<std::string>{"True", "Qualified", "2026-12-03T10:00:00Z", "2026-12-03T10:00:00Z"}));
  EXPECT_EQ(w.passes_in_a_row, 1u);
}

TEST(NodeConditionHistory, PassesCountUpToConsecutiveAndAFailStartsAgain) {
  json node = node_with(nullptr);
  const auto write = [&](const ConditionVerdict& v, const std::string& now) {
    const ConditionWrite w = next_condition(v, node_condition_state(node, "n.json"), now, 3);
    node = patched(w);
    return w;
  };
  write(fail(), "2026-12-03T10:00:00Z");
  ConditionWrite w = write(pass(), "2026-12-03T11:00:00Z");
  EXPECT_EQ((std::vector<std::string>{w.condition.status, w.condition.reason, w.condition.last_transition}),
            (std::vector<std::string>{"False", "AwaitingConsecutivePasses", "2026-12-03T10:00:00Z"}));
  EXPECT_EQ(w.condition.message,
            "1 of 3 passing runs in a row since the last non-passing run (--consecutive 3): gpuqual: PASS");
  EXPECT_EQ(write(pass(), "2026-12-03T12:00:00Z").passes_in_a_row, 2u);
  w = write(pass(), "2026-12-03T13:00:00Z");
  EXPECT_EQ((std::vector<std::string>{w.condition.status, w.condition.reason, w.condition.message,
                                      w.condition.last_transition}),
            (std::vector<std::string>{"True", "Qualified", "gpuqual: PASS", "2026-12-03T13:00:00Z"}));
  // True stays True on the next pass, its transition time kept; a fail resets the count.
  EXPECT_EQ(write(pass(), "2026-12-03T14:00:00Z").condition.last_transition, "2026-12-03T13:00:00Z");
  w = write(fail(), "2026-12-03T15:00:00Z");
  EXPECT_EQ(w.passes_in_a_row, 0u);
  EXPECT_EQ(w.condition.last_transition, "2026-12-03T15:00:00Z");
  EXPECT_EQ(write(pass(), "2026-12-03T16:00:00Z").condition.message.substr(0, 6), "1 of 3");
  // Unknown (expired) in between breaks the run as well.
  write(unknown_condition("QualificationExpired", "old"), "2026-12-03T17:00:00Z");
  w = write(pass(), "2026-12-03T18:00:00Z");
  EXPECT_EQ((std::vector<std::string>{w.condition.status, w.condition.message.substr(0, 6)}),
            (std::vector<std::string>{"Unknown", "1 of 3"}));
}

TEST(NodeConditionHistory, TheMessageIsNeverParsedForTheCount) {
  // The old helper's message says 2 of 3; without the annotation nothing was counted.
  json prev = condition("False", "2026-12-03T12:00:00Z", "2026-12-03T10:00:00Z");
  prev["message"] = "2 of 3 passing runs in a row since the last non-passing run (--consecutive 3): x";
  const ConditionWrite w =
      next_condition(pass(), node_condition_state(node_with(prev), "n.json"), "2026-12-03T13:00:00Z", 3);
  EXPECT_EQ(w.condition.status, "False");
  EXPECT_EQ(w.passes_in_a_row, 1u);
}

TEST(NodeConditionHistory, OneOrZeroConsecutiveQualifiesOnTheFirstPass) {
  const json prev = condition("False", "2026-12-03T12:00:00Z", "2026-12-03T10:00:00Z");
  for (std::size_t n : {0u, 1u}) {
    const ConditionWrite w =
        next_condition(pass(), node_condition_state(node_with(prev), "n.json"), "2026-12-03T13:00:00Z", n);
    EXPECT_EQ(w.condition.status, "True") << n;
    EXPECT_EQ(w.condition.last_transition, "2026-12-03T13:00:00Z") << n;
  }
}

TEST(NodeConditionHistory, ACountNotBoundToTheConditionCountsNothing) {
  const json prev = condition("False", "2026-12-03T12:00:00Z", "2026-12-03T10:00:00Z");
  const NodeConditionState bound =
      node_condition_state(node_with(prev, count(2, "2026-12-03T12:00:00Z")), "n");
  EXPECT_EQ(bound.passes_in_a_row, 2u);
  EXPECT_TRUE(bound.warnings.empty());
  EXPECT_EQ(next_condition(pass(), bound, "2026-12-03T13:00:00Z", 3).condition.status, "True");
  // The condition was written since by something else (another heartbeat): the count is stale.
  for (const json& a : {json(count(2, "2026-12-03T11:00:00Z")), json("2"),
                        json("{\"passes\": -1, \"heartbeat\": \"x\"}"), json("{not json"), json(7)}) {
    const NodeConditionState s = node_condition_state(node_with(prev, a), "n.json");
    EXPECT_EQ(s.passes_in_a_row, 0u) << a.dump();
    ASSERT_EQ(s.warnings.size(), 1u) << a.dump();
    EXPECT_NE(s.warnings[0].find(kConsecutivePassesAnnotation), std::string::npos) << s.warnings[0];
  }
  // A count without a condition: nothing to be bound to.
  EXPECT_EQ(node_condition_state(node_with(nullptr, count(2, "t")), "n.json").passes_in_a_row, 0u);
}

TEST(NodeConditionHistory, TransitionTimeKeptOnlyWhileTheStatusHolds) {
  const json prev = condition("Unknown", "2026-12-03T12:00:00Z", "2026-12-03T10:00:00Z");
  const NodeConditionState s = node_condition_state(node_with(prev), "n.json");
  EXPECT_EQ(next_condition(*condition_from_exit(2, "", nullptr), s, "2026-12-03T13:00:00Z", 1)
                .condition.last_transition,
            "2026-12-03T10:00:00Z");
  EXPECT_EQ(next_condition(fail(), s, "2026-12-03T13:00:00Z", 1).condition.last_transition,
            "2026-12-03T13:00:00Z");
  // A previous condition without a transition time gets one now.
  json bare = prev;
  bare.erase("lastTransitionTime");
  EXPECT_EQ(next_condition(*condition_from_exit(2, "", nullptr),
                           node_condition_state(node_with(bare), "n.json"), "2026-12-03T13:00:00Z", 1)
                .condition.last_transition,
            "2026-12-03T13:00:00Z");
}

TEST(NodeConditionNode, BadNodesNameTheFileAndThePath) {
  const auto problem = [](const json& node) {
    try {
      node_condition_state(node, "node.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(problem(json::array()).find("node.json"), std::string::npos);
  EXPECT_NE(problem({{"status", {{"conditions", "x"}}}}).find("$.status.conditions"), std::string::npos);
  EXPECT_NE(problem({{"status", {{"conditions", json::array({1})}}}}).find("$.status.conditions[0]"),
            std::string::npos);
  json wrong = node_with(condition("True", "t", "t"));
  wrong["status"]["conditions"][1]["status"] = true;
  EXPECT_NE(problem(wrong).find("$.status.conditions[1].status"), std::string::npos);
  EXPECT_NE(problem({{"metadata", {{"annotations", json::array()}}}}).find("$.metadata.annotations"),
            std::string::npos);
  EXPECT_FALSE(node_condition_state(json::object(), "node.json").previous);
}

TEST(NodeConditionNode, ThePatchCarriesTheConditionAndItsCount) {
  const ConditionWrite w =
      next_condition(pass(), node_condition_state(node_with(nullptr), "n"), "2026-12-03T10:00:00Z", 2);
  const json patch = json::parse(condition_patch(w).dump());
  EXPECT_EQ(patch["status"]["conditions"], json::array({{{"type", "GpuQualified"},
                                                         {"status", "True"},
                                                         {"reason", "Qualified"},
                                                         {"message", "gpuqual: PASS"},
                                                         {"lastHeartbeatTime", "2026-12-03T10:00:00Z"},
                                                         {"lastTransitionTime", "2026-12-03T10:00:00Z"}}}));
  EXPECT_EQ(json::parse(patch["metadata"]["annotations"][kConsecutivePassesAnnotation].get<std::string>()),
            (json{{"passes", 1}, {"heartbeat", "2026-12-03T10:00:00Z"}}));
  EXPECT_EQ(patch.size(), 2u);
}

class NodeConditionCli : public gpuqual::testing::ScratchDirTest {
 protected:
  NodeConditionCli() : ScratchDirTest("node-condition") {}
  std::string file(const std::string& name, const std::string& text) {
    const auto p = scratch_ / name;
    std::ofstream(p) << text;
    return shell_quote(p.string());
  }
};

TEST_F(NodeConditionCli, PrintsThePatchFromTheFilesThePodHolds) {
  const std::string node = file("node.json", node_with(nullptr).dump());
  const std::string verdict = file(
      "verdict.json",
      verdict_with(json::array({finding("ecc.uncorrected_volatile", "fail")}), json::array(), json::array())
          .dump());
  const std::string summary = file("summary", "gpuqual: FAIL gpu-node-12: 1 finding failed\nmore\n");
  const auto r = run_cli("node-condition --exit-code 1 --summary " + summary + " --verdict " + verdict +
                             " --node " + node + " --now 2026-12-03T10:00:00Z --print condition",
                         scratch_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json c = json::parse(r.out);
  EXPECT_EQ(c["reason"], "EccUncorrectedVolatile");
  EXPECT_EQ(c["message"], "gpuqual: FAIL gpu-node-12: 1 finding failed");
  EXPECT_EQ(c["lastTransitionTime"], "2026-12-03T10:00:00Z");
  // A torn exit-code file is a harness that did not finish: Unknown.
  const auto torn = run_cli("node-condition --exit-code 1x --node " + node, scratch_);
  ASSERT_EQ(torn.code, 0) << torn.err;
  EXPECT_EQ(json::parse(torn.out)["status"]["conditions"][0]["status"], "Unknown");
}

TEST_F(NodeConditionCli, ExitThreeWritesNothing) {
  const auto r = run_cli("node-condition --exit-code 3 --node " + file("node.json", "{}"), scratch_);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("condition left as it is"), std::string::npos) << r.err;
}

TEST_F(NodeConditionCli, BadInputIsExitThreeNamingIt) {
  const std::string node = file("node.json", "{\"status\": ");
  auto r = run_cli("node-condition --exit-code 0 --node " + node, scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("node.json"), std::string::npos) << r.err;
  const std::string good = file("good.json", "{}");
  r = run_cli("node-condition --unknown 'not camel' msg --node " + good, scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("not CamelCase"), std::string::npos) << r.err;
  r = run_cli("node-condition --exit-code 0 --now yesterday --node " + good, scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("yesterday"), std::string::npos) << r.err;
  r = run_cli("node-condition --exit-code 0 --summary " + shell_quote((scratch_ / "absent").string()) +
                  " --node " + good,
              scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("absent"), std::string::npos) << r.err;
  r = run_cli("node-condition --node " + good, scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("--unknown"), std::string::npos) << r.err;
  // A verdict that is no JSON is not bad input: the exit code decides, with a note.
  r = run_cli("node-condition --exit-code 1 --verdict " + file("v.json", "gpuqual compare: error\n") +
                  " --node " + good,
              scratch_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the exit code decides"), std::string::npos) << r.err;
}
