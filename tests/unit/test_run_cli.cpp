// `gpuqual run` end to end through gpuqual-testbin: statuses, exit codes, every flag.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "run_fixture.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RunCli : public RunFixture {};

constexpr const char* kThree =
    "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n"
    "  - check: test_fail\n    budget_s: 1\n    timeout_s: 10\n"
    "  - check: test_skip\n    budget_s: 1\n    timeout_s: 10\n";

TEST_F(RunCli, PassingSuiteWithBaselineNoneIsRecordedButNotJudged) {
  write_suite("s", "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n");
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json"});
  // Nothing judged against a baseline: inconclusive, never pass.
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: INCONCLUSIVE"));
  EXPECT_THAT(last_line(r.out), HasSubstr("not judged against a baseline (--baseline none); 2 checks: "));
  const RunRecord rec = record();
  EXPECT_TRUE(rec.complete);
  EXPECT_FALSE(rec.ended_at.empty());
  EXPECT_EQ(rec.suite, "s");
  ASSERT_EQ(suite_checks(rec).size(), 1u);
  EXPECT_EQ(rec.checks[0].status, Status::pass);
  ASSERT_EQ(rec.checks[0].metrics.size(), 1u);
  EXPECT_EQ(rec.checks[0].metrics[0].name, "test.value");
  EXPECT_GT(rec.checks[0].duration_s, 0);
  EXPECT_FALSE(rec.checks[0].started_at.empty());
  // The run-level Xid capture: on this machine without NVML it says why it could not run.
  const CheckResult& xid = check(rec, "xid");
  if (rec.gpus.empty()) {
    EXPECT_EQ(xid.status, Status::skip);
    EXPECT_FALSE(xid.reason.empty());
  }
  EXPECT_THAT(rec.argv, ::testing::Contains("--baseline"));
  EXPECT_FALSE(rec.run_id.empty());
  // Not a TTY: timestamped log lines on stderr, one per check start and end.
  EXPECT_THAT(
      r.err,
      ::testing::ContainsRegex(
          R"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z gpuqual: \[1/1\] test_pass: started)"));
  EXPECT_THAT(r.err, HasSubstr("[1/1] test_pass: pass"));
}

TEST_F(RunCli, AFailedCheckExits1EvenUnjudged) {
  write_suite("s", kThree);
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: FAIL"));
  EXPECT_THAT(last_line(r.out), HasSubstr("test_fail fail: planted failure"));
  const RunRecord rec = record();
  EXPECT_EQ(check(rec, "test_pass").status, Status::pass);
  EXPECT_EQ(check(rec, "test_fail").status, Status::fail);
  EXPECT_EQ(check(rec, "test_fail").reason, "planted failure");
  EXPECT_EQ(check(rec, "test_skip").status, Status::skip);
  EXPECT_EQ(check(rec, "test_skip").reason, "not applicable: planted skip");
}

// The judged run gives exactly what `gpuqual compare` gives on the same record.
class JudgedRun : public RunFixture {
 protected:
  std::string baseline(double expected) {
    return write_file("b.yaml", fmt::format(R"(schema: gpuqual.baseline/v1
hardware_class: test-class
provenance:
  source: "hand-written for the runner tests"
checks:
  test_pass: {{required: true}}
metrics:
  - name: test.value
    unit: count
    direction: higher
    expected: {}
    tolerance: 0.05
    per_gpu: false
)",
                                            expected));
  }

  void expect_same_as_compare(const ProcResult& run, const std::string& baseline_path) {
    const auto cmp = gpuqual({"compare", path("r.json"), "--baseline", baseline_path}, {}, GPUQUAL_BINARY);
    EXPECT_EQ(run.exit_code, cmp.exit_code) << cmp.out << cmp.err;
    EXPECT_EQ(last_line(run.out), last_line(cmp.out));
  }
};

TEST_F(JudgedRun, PassesAgainstAMatchingBaseline) {
  write_suite("s", "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n    params: {value: 100}\n");
  const std::string b = baseline(100);
  const auto r = gpuqual(
      {"run", "--suite", path("s.yaml"), "--class", "test-class", "--baseline", b, "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: PASS"));
  EXPECT_EQ(record().hardware_class.slug, "test-class");
  EXPECT_TRUE(record().hardware_class.overridden);
  expect_same_as_compare(r, b);
}

TEST_F(JudgedRun, FailsWhenTheMetricDropsAndWritesTheReportFiles) {
  write_suite("s", "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n    params: {value: 50}\n");
  const std::string b = baseline(100);
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--class", "test-class", "--baseline", b,
                          "--output", "r.json", "--junit", "j.xml", "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: FAIL"));
  EXPECT_TRUE(std::filesystem::exists(path("j.xml")));
  // --format json: stdout is the verdict document, then the summary line.
  const std::string body = r.out.substr(0, r.out.size() - last_line(r.out).size() - 1);
  EXPECT_EQ(nlohmann::json::parse(body).at("outcome"), "fail");
  expect_same_as_compare(r, b);
}

// No false pass (docs/compare.md): a skip that could not measure never passes; a not-applicable code set by
// the check or `optional: true` in the suite lets the run pass, and the record says which it was.
TEST_F(JudgedRun, ASkipIsInconclusiveUnlessNotApplicableOrOptional) {
  const std::string b = baseline(100);
  const std::string pass = "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n";
  write_suite("plain", pass + "  - check: test_skip\n    budget_s: 1\n    timeout_s: 10\n");
  auto r = gpuqual(
      {"run", "--suite", path("plain.yaml"), "--class", "test-class", "--baseline", b, "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(last_line(r.out), HasSubstr("test_skip skipped: not applicable: planted skip"));
  expect_same_as_compare(r, b);

  // A code counts only from its own check (single_gpu: p2p, nccl_allreduce), so the planted
  // skip's stays inconclusive and says why (core/verdict/skip_acceptance.hpp).
  write_suite("na", pass +
                        "  - check: test_skip\n    budget_s: 1\n    timeout_s: 10\n    params: {reason_code: "
                        "single_gpu}\n");
  r = gpuqual(
      {"run", "--suite", path("na.yaml"), "--class", "test-class", "--baseline", b, "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(check(record(), "test_skip").reason_code, "single_gpu");
  EXPECT_THAT(r.out, HasSubstr("(not accepted as not applicable: single_gpu"));

  write_suite("opt", pass + "  - check: test_skip\n    budget_s: 1\n    timeout_s: 10\n    optional: true\n");
  r = gpuqual(
      {"run", "--suite", path("opt.yaml"), "--class", "test-class", "--baseline", b, "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(check(record(), "test_skip").optional);
}

TEST_F(JudgedRun, ExpectGpusFailsANodeWithFewerGpus) {
  write_suite("s", "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n");
  const std::string b = baseline(100);
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--class", "test-class", "--baseline", b,
                          "--output", "r.json", "--expect-gpus", "1024"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(last_line(r.out), HasSubstr("gpu.missing"));
}

TEST_F(JudgedRun, TargetFailsANodeOffItAndABadTargetIsExit3BeforeAnythingRuns) {
  write_suite("s", "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n");
  const std::string b = baseline(100);
  const std::string t =
      write_file("t.yaml", "schema: gpuqual.target/v1\ncomponents:\n  kernel: {exact: not-this-kernel}\n");
  auto r = gpuqual({"run", "--suite", path("s.yaml"), "--class", "test-class", "--baseline", b, "--output",
                    "r.json", "--target", t});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("kernel: expected exact not-this-kernel, found "));
  const std::string bad = write_file("bad.yaml", "schema: gpuqual.target/v1\n");
  r = gpuqual({"run", "--suite", path("s.yaml"), "--class", "test-class", "--baseline", b, "--output",
               "r2.json", "--target", bad});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("r2.json")));
}

TEST_F(JudgedRun, AutoBaselineForAnUnknownClassIsInconclusive) {
  write_suite("s", "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n");
  std::filesystem::create_directories(path("no-baselines"));
  const auto r = gpuqual(
      {"run", "--suite", path("s.yaml"), "--baselines-dir", path("no-baselines"), "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: INCONCLUSIVE"));
  EXPECT_THAT(r.err, HasSubstr("the verdict will be inconclusive"));
}

TEST_F(JudgedRun, BaselineOfAnotherClassIsRejectedBeforeAnythingRuns) {
  write_suite("s", "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n");
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--class", "other-class", "--baseline",
                          baseline(100), "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("baseline is for class test-class but the record is class other-class"));
  EXPECT_FALSE(std::filesystem::exists(path("r.json")));
}

TEST_F(JudgedRun, MalformedBaselineFileIsExit3BeforeAnythingRuns) {
  write_suite("s", "  - check: test_pass\n");
  write_file("bad.yaml", "schema: gpuqual.baseline/v1\nhardware_class: [\n");
  const auto r =
      gpuqual({"run", "--suite", path("s.yaml"), "--baseline", path("bad.yaml"), "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("bad.yaml"));
  EXPECT_FALSE(std::filesystem::exists(path("r.json")));
}

TEST_F(RunCli, ReportFlagsNeedABaseline) {
  write_suite("s", "  - check: test_pass\n");
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--junit", "j.xml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("--baseline none"));
}

TEST_F(RunCli, OnlyAndSkipSelectChecks) {
  write_suite("s", kThree);
  auto r = gpuqual(
      {"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json", "--only", "test_pass"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_EQ(suite_checks(record()).size(), 1u);
  EXPECT_EQ(record().checks[0].name, "test_pass");

  r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json", "--skip",
               "test_fail,test_skip"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_EQ(suite_checks(record()).size(), 1u);
  EXPECT_EQ(record().checks[0].name, "test_pass");

  r = gpuqual({"run", "--suite", path("s.yaml"), "--only", "test_pass", "--only", "test_skip", "--skip",
               "test_skip", "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_EQ(suite_checks(record()).size(), 1u);
}

TEST_F(RunCli, OnlyOrSkipNamingNoCheckOfTheSuiteIsExit3) {
  write_suite("s", kThree);
  auto r = gpuqual({"run", "--suite", path("s.yaml"), "--only", "gemm", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(
      r.err,
      HasSubstr("--only: \"gemm\" is not a check of suite s (its checks: test_pass, test_fail, test_skip)"));
  r = gpuqual({"run", "--suite", path("s.yaml"), "--skip", "test_pass,test_fail,test_skip"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("no check of suite s is left to run"));
  EXPECT_FALSE(std::filesystem::exists(path("r.json")));
}

TEST_F(RunCli, GpusAreHandedToTheChecks) {
  write_suite("s", "  - check: test_context\n    budget_s: 7\n    timeout_s: 20\n    params: {n: 3, s: x}\n");
  const auto r = gpuqual(
      {"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json", "--gpus", "2,0"});
  // This machine has no GPU, so the selection cannot be checked: the run goes on and says why.
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "test_context");
  EXPECT_EQ(c.attributes.at("gpus"), "0,2");
  EXPECT_EQ(c.attributes.at("budget_s"), "7");
  EXPECT_EQ(nlohmann::json::parse(c.attributes.at("params")), nlohmann::json::parse(R"({"n": 3, "s": "x"})"));
  EXPECT_EQ(c.attributes.at("hostname"), record().node.hostname);
  EXPECT_EQ(c.attributes.at("hardware_class"), record().hardware_class.slug);
  EXPECT_EQ(c.attributes.at("node_gpus"), std::to_string(record().gpus.size()));
  EXPECT_EQ(c.attributes.at("env_run_id"), rec.run_id);  // GPUQUAL_RUN_ID names the run to the checks
  if (record().gpus.empty()) {
    EXPECT_FALSE(c.attributes.at("gpu_unavailable_reason").empty());
  }
}

TEST_F(RunCli, MalformedGpusIsExit3) {
  write_suite("s", "  - check: test_pass\n");
  for (const char* bad : {"x", "0,,1", "1,1", "-1", "0;1"}) {
    const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--gpus", bad, "--output", "r.json"});
    EXPECT_EQ(r.exit_code, 3) << bad;
    EXPECT_THAT(r.err, HasSubstr("--gpus")) << bad;
  }
}

TEST_F(RunCli, ClassThatIsNotASlugIsExit3) {
  // The slug names baselines/<slug>.yaml: a path or blanks in it are refused before anything runs.
  write_suite("s", "  - check: test_pass\n");
  for (const char* bad : {"H200 SXM", "../etc/passwd", "-h200", ""}) {
    const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--class", bad, "--output", "r.json"});
    EXPECT_EQ(r.exit_code, 3) << bad;
    EXPECT_THAT(r.err, HasSubstr("--class")) << bad;
    EXPECT_FALSE(std::filesystem::exists(path("r.json"))) << bad;
  }
}

TEST_F(RunCli, SideDirectoryIsMadeByItsFirstWriterAndStaysOnlyWhenUsed) {
  // The runner does not make it in advance, so a run killed mid-way leaves no empty one.
  write_suite("s", "  - check: test_context\n    params: {side_file: notes.txt}\n");
  auto r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(check(record(), "test_context").attributes.at("side_dir_exists"), "no");
  EXPECT_EQ(check(record(), "test_context").attributes.at("side_dir"), "r.files");
  EXPECT_TRUE(std::filesystem::exists(path("r.files/notes.txt")));

  write_suite("t", "  - check: test_context\n");
  r = gpuqual({"run", "--suite", path("t.yaml"), "--baseline", "none", "--output", "q.json"});
  EXPECT_FALSE(std::filesystem::exists(path("q.files")));
}

TEST_F(RunCli, DefaultOutputIsResultsHostTimestamp) {
  write_suite("s", "  - check: test_pass\n");
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(path("results")))
    files.push_back(e.path().filename().string());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0], ::testing::MatchesRegex(R"(.+-[0-9]{8}T[0-9]{6}Z\.json)"));
  const RunRecord rec = read_record(path("results/" + files[0]));
  EXPECT_EQ(files[0].substr(0, rec.node.hostname.size()), rec.node.hostname);
  EXPECT_THAT(last_line(r.out), HasSubstr("record results/" + files[0]));
}

TEST_F(RunCli, UnwritableOutputIsExit3) {
  write_suite("s", "  - check: test_pass\n");
  write_file("file", "x");
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--output", path("file/r.json")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("file/r.json"));
}

TEST_F(RunCli, SuiteByNameFromSuitesDir) {
  std::filesystem::create_directories(path("suites"));
  write_file("suites/mine.yaml", "name: mine\nchecks:\n  - check: test_pass\n");
  auto r = gpuqual(
      {"run", "--suite", "mine", "--suites-dir", path("suites"), "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(record().suite, "mine");
  r = gpuqual({"run", "--suite", "nosuch", "--suites-dir", path("suites")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("no suite \"nosuch\" in " + path("suites") + " (suites there: mine)"));
  // The environment variable works as the flag does.
  r = gpuqual({"run", "--suite", "mine", "--baseline", "none", "--output", "r.json"},
              env("GPUQUAL_SUITES_DIR=" + path("suites")));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(RunCli, MalformedSuiteIsExit3WithFileLineAndProblem) {
  write_file("bad.yaml", "name: bad\nchecks:\n  - check: test_pass\n    budget_s: 1\n    timeout: 5\n");
  const auto r = gpuqual({"run", "--suite", path("bad.yaml"), "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr(path("bad.yaml") + ": line 5: $.checks[0].timeout: unknown field"));
  EXPECT_FALSE(std::filesystem::exists(path("r.json")));
}

TEST_F(RunCli, DurationIsASuiteParameter) {
  write_suite(
      "d",
      "  - check: test_context\n    budget_s: \"${duration} + 5\"\n    timeout_s: \"${duration} + 60\"\n"
      "    params: {duration_s: \"${duration}\"}\n",
      "default_duration: 1h\n");
  auto r = gpuqual(
      {"run", "--suite", path("d.yaml"), "--duration", "2s", "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "test_context");
  EXPECT_EQ(nlohmann::json::parse(c.attributes.at("params")).at("duration_s"), 2.0);
  EXPECT_EQ(c.attributes.at("budget_s"), "7");

  r = gpuqual({"run", "--suite", path("d.yaml"), "--duration", "soon"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("--duration: \"soon\" is not a duration"));

  write_suite("s", "  - check: test_pass\n");
  r = gpuqual({"run", "--suite", path("s.yaml"), "--duration", "2h"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("uses no ${duration}"));
}

TEST_F(RunCli, QuietShowsNoProgressVerboseShowsTheChecksMessages) {
  write_suite("s", "  - check: test_progress\n    params: {messages: 3}\n");
  auto r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: INCONCLUSIVE"));  // the summary stays

  r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json", "--verbose"});
  EXPECT_THAT(r.err, HasSubstr("[1/1] test_progress: step 1/3"));
  EXPECT_THAT(r.err, HasSubstr("[1/1] test_progress: step 3/3"));

  r = gpuqual({"run", "--suite", path("s.yaml"), "--quiet", "--verbose"});
  EXPECT_EQ(r.exit_code, 3);
}

TEST_F(RunCli, SuiteIsRequiredAndUnknownFlagsAreExit3) {
  auto r = gpuqual({"run"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("--suite"));
  r = gpuqual({"run", "--suite", "canary", "--no-such-flag"});
  EXPECT_EQ(r.exit_code, 3);
  r = gpuqual({"run", "--suite", "canary", "--grace", "-1"});
  EXPECT_EQ(r.exit_code, 3);
  r = gpuqual({"run", "--suite", "canary", "--timeout", "0"});
  EXPECT_EQ(r.exit_code, 3);
}

TEST_F(RunCli, CheckNotBuiltIntoThisBinaryIsAnErrorNotAPass) {
  write_suite("s", "  - check: gemm\n  - check: test_pass\n");
  const auto r = gpuqual({"run", "--suite", path("s.yaml"), "--baseline", "none", "--output", "r.json"},
                         env("GPUQUAL_TESTBIN_UNBUILD=gemm"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "gemm");
  EXPECT_EQ(c.status, Status::error);
  EXPECT_THAT(c.reason, StartsWith("check \"gemm\" is not built into this gpuqual"));
  EXPECT_EQ(check(record(), "test_pass").status, Status::pass);
}

TEST_F(RunCli, TheCheckChildCommandIsHidden) {
  const auto r = gpuqual({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("run"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("__check")));
}

TEST_F(RunCli, ListShowsChecksAndSuitesOneLineEach) {
  std::filesystem::create_directories(path("suites"));
  write_file(
      "suites/mine.yaml",
      "name: mine\ndescription: my suite\nbudget_s: 30\nchecks:\n  - check: test_pass\n    budget_s: 5\n");
  auto r = gpuqual({"list", "--suites-dir", path("suites")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("  test_pass +\\[test-only\\] passes"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("  mine +<= 30s +my suite: test_pass"));
  write_file("suites/broken.yaml", "name: broken\nchecks: []\n");
  r = gpuqual({"list", "--suites-dir", path("suites")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("broken     INVALID: " + path("suites/broken.yaml") + ": line 2"));
  EXPECT_THAT(r.out, HasSubstr("mine"));
}

}  // namespace
}  // namespace gpuqual::testing
