// Cases an adversarial review found passing where they must not (docs/compare.md, "What earns a PASS"): each
// test fails without the rule it names. diff's pair whose order cannot be told: test_diff_rules.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>

#include "core/fleet/matrix.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/gate.hpp"
#include "core/record/hardware_class.hpp"
#include "core/verdict/record_history.hpp"
#include "record_builders.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

// A check whose own status is skip while each of its GPUs passed (an edited record: the writers
// roll a check's status up from its GPUs') never passes: compare's rows, and so diff's
// after-record, gate's nodes and matrix's runs, take the check's own skip.
TEST(ReviewOwnSkip, ASkippedCheckWhoseGpusPassedIsNotAPass) {
  RunRecord r = make_record(1);
  CheckResult gemm = check("gemm", Status::pass);
  gemm.per_gpu = {{0, Status::pass, "", ""}};
  gemm.metrics = {make_metric("gemm.bf16.tflops", "TFLOP/s", {990, 1000, 1010})};
  r.checks = {gemm};
  Baseline b = class_baseline();
  b.metrics.resize(1);  // gemm.bf16.tflops alone
  b.checks.erase("hbm");
  ASSERT_EQ(compare_record(r, &b, CompareOptions{}).outcome, Outcome::pass);
  r.checks[0].status = Status::skip;
  r.checks[0].reason = "not run";
  const Verdict v = compare_record(r, &b, CompareOptions{});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(std::any_of(v.reasons.begin(), v.reasons.end(), [](const std::string& s) {
    return s.find("gemm skipped: not run") != std::string::npos;
  }));
  // A not-applicable code the record does not bear out (one GPU is not "no GPU") decides the same.
  r.checks[0].reason_code = "no_gpu";
  EXPECT_NE(compare_record(r, &b, CompareOptions{}).outcome, Outcome::pass);
}

// One card is one card however its UUID is spelt (docs/hardware-class.md, "Identity"): case,
// blanks and NVML's "GPU-" prefix.
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(ReviewGpuIdentity, OneUuidSpeltTwoWaysIsOneCardCountedTwice) {
  RunRecord r = make_record(2);
  r.gpus[0].uuid = "GPU-3f9c2a71-5d4e-8b06-c1a2-7e94d0b5a618";
  for (const std::string& spelt : {r.gpus[0].uuid + " ", " " + upper(r.gpus[0].uuid),
                                   std::string("3f9c2a71-5d4e-8b06-c1a2-7e94d0b5a618")}) {
    r.gpus[1].uuid = spelt;
    const auto problem = gpu_identity_problem(r.hardware_class, r.gpus);
    ASSERT_TRUE(problem) << spelt;
    EXPECT_NE(problem->problem.find("duplicate GPU UUID"), std::string::npos) << problem->problem;
  }
  r.gpus[1].uuid = " \t ";
  const auto blank = gpu_identity_problem(r.hardware_class, r.gpus);
  ASSERT_TRUE(blank);
  EXPECT_NE(blank->problem.find("GPU 1 has no UUID"), std::string::npos) << blank->problem;
  r.gpus[1].uuid = "GPU-8a0d6e52-13b7-4f2c-9e8a-b4c61f07d3e9";
  EXPECT_FALSE(gpu_identity_problem(r.hardware_class, r.gpus));
}

TEST(ReviewGpuIdentity, OneMachineWhoseUuidsDifferInCaseCountsOnceInGateAndMatrix) {
  Jitter jitter{std::mt19937_64(7)};
  const Baseline b = counted(class_baseline());
  RunRecord a = flat_node_record(jitter, "node-a");
  for (std::size_t i = 0; i < a.gpus.size(); ++i)
    a.gpus[i].uuid = fmt::format("GPU-abcdef{:02}-aaaa-bbbb-cccc-ddddeeeeffff", i);
  RunRecord pod = a;
  pod.node.hostname = "pod-7";
  pod.run_id = "run-pod-7";
  pod.started_at = "2026-11-30T13:00:00Z";
  pod.ended_at = "2026-11-30T13:03:00Z";
  for (auto& g : pod.gpus) g.uuid = upper(g.uuid);
  GateOptions o;
  o.expect_nodes = 2;
  GatePool pool(o);
  pool.add(summarize_node(a, &b, o, "a.json", 0), &b);
  pool.add(summarize_node(pod, &b, o, "pod.json", 1), &b);
  const Verdict v = pool.finish();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;

  MatrixBuilder m(2);
  m.add(observe_record(a, Outcome::pass));
  m.add(observe_record(pod, Outcome::pass));
  const Matrix built = m.finish();
  ASSERT_EQ(built.rows.size(), 1u);
  EXPECT_EQ(built.rows[0].state, MatrixState::unqualified) << built.rows[0].why;
}

// --consecutive (docs/gate.md): one run copied under another run_id, or two runs of one machine
// at once, is one run, never two passes in a row.
TEST(ReviewConsecutive, RunsWhoseTimesOverlapCountOnce) {
  auto run = [](const std::string& boot, std::int64_t start_s, std::int64_t end_s, std::size_t order) {
    return RunPoint{boot, std::nullopt, start_s * 1000, order, Outcome::pass, end_s * 1000};
  };
  EXPECT_EQ(judge_history({run("", 0, 180, 0), run("", 0, 180, 1)}, "", false).passes_in_a_row, 1u);
  EXPECT_EQ(judge_history({run("b", 0, 180, 0), run("b", 60, 240, 1)}, "", false).passes_in_a_row, 1u);
  EXPECT_EQ(judge_history({run("b", 0, 180, 0), run("b", 181, 360, 1)}, "", false).passes_in_a_row, 2u);

  Jitter jitter{std::mt19937_64(11)};
  const Baseline b = counted(class_baseline());
  RunRecord first = flat_node_record(jitter, "node-a");
  RunRecord copy = first;
  copy.run_id = "run-copy";
  GateOptions o;
  o.consecutive = 2;
  GatePool pool(o);
  pool.add(summarize_node(first, &b, o, "first.json", 0), &b);
  pool.add(summarize_node(copy, &b, o, "copy.json", 1), &b);
  EXPECT_EQ(pool.finish().outcome, Outcome::inconclusive);
}

}  // namespace
