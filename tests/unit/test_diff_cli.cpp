// The real gpuqual binary end to end for diff, gate and baseline build: exit codes, the summary
// line last on stdout, reports written, input errors. Records are written by the test into a
// temporary directory from the seeded builders.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_helpers.hpp"
#include "core/record/record_io.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

using gpuqual::testing::CliRun;

// Paths here are plain temp paths; stderr goes to the test's temp directory.
// Wide enough that the summary line is never shortened to fit (docs/output-formats.md).
CliRun run_gpuqual(const std::string& args) {
  return gpuqual::testing::run_cli(args, ::testing::TempDir(), "COLUMNS=400");
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           fmt::format("gpuqual-cli-{}", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const RunRecord& r) {
    const std::string p = (dir_ / name).string();
    fs::create_directories(fs::path(p).parent_path());
    write_record(p, r);
    return p;
  }
  // A record for diff, of no suite (the checks a suite requires are compare's rule, tested there).
  std::string write_before(const std::string& name, RunRecord r) {
    r.suite.clear();
    return write(name, r);
  }
  // An after-record: another run, a day after the builders' run (diff refuses the same run twice).
  std::string write_after(const std::string& name, RunRecord r) {
    r.run_id = "run-after-" + name;
    r.started_at = "2026-12-01T12:00:00Z";
    r.ended_at = "2026-12-01T12:03:00Z";
    return write_before(name, r);
  }
  // --baselines-dir with the class's measured baseline (5 % on every fixture metric), so the
  // after-record is judged against it as compare judges it, whatever floors the tree ships.
  std::string baseline_file() {
    const fs::path d = dir_ / "baselines";
    fs::create_directories(d);
    Baseline b = class_baseline();
    b.provenance.source = "hand-written for the diff tests";
    std::ofstream(d / "h200-sxm-141gb.yaml") << baseline_to_yaml(b);
    return (d / "h200-sxm-141gb.yaml").string();
  }
  std::string baselines() { return " --baselines-dir " + fs::path(baseline_file()).parent_path().string(); }
  fs::path dir_;
};

}  // namespace

TEST_F(Cli, DiffExitCodes) {
  Jitter jitter{std::mt19937_64(1)};
  const std::string before = write_before("before.json", node_record(jitter, 2)) + baselines();
  RunRecord same = node_record(jitter, 2);
  same.node.driver_version = "580.65.06";
  const std::string after_same = write_after("after-same.json", same);
  const std::string after_slow = write_after(
      "after-slow.json", node_record(jitter, 2, [](int g, int m) { return g == 1 && m == 0 ? 0.95 : 1.0; }));
  RunRecord errored = node_record(jitter, 2);
  errored.checks[1] = check("hbm", Status::error, "timed out after 120 s");
  const std::string after_error = write_after("after-error.json", errored);
  RunRecord unmeasured = node_record(jitter, 2);
  unmeasured.checks.push_back(check("health", Status::skip, "NVML unavailable"));
  const std::string after_unmeasured = write_after("after-unmeasured.json", unmeasured);

  CliRun pass = run_gpuqual(fmt::format("diff {} {}", before, after_same));
  EXPECT_EQ(pass.code, 0) << pass.out;
  EXPECT_EQ(pass.last_line().rfind("gpuqual diff: PASS node-a", 0), 0u) << pass.last_line();
  EXPECT_NE(pass.out.find("driver: 570.133.20 → 580.65.06"), std::string::npos) << pass.out;

  const std::string junit = (dir_ / "diff.xml").string();
  CliRun fail = run_gpuqual(fmt::format("diff {} {} --junit {}", before, after_slow, junit));
  EXPECT_EQ(fail.code, 1) << fail.out;
  EXPECT_NE(fail.last_line().find("gemm.bf16.tflops gpu 1"), std::string::npos) << fail.last_line();
  EXPECT_TRUE(fs::exists(junit));

  // A 5 % drop passes when 6 % is allowed; JSON carries kind "diff" and the stack changes.
  CliRun loose = run_gpuqual(fmt::format("diff {} {} --allowed-drop 6% --format json", before, after_slow));
  EXPECT_EQ(loose.code, 0) << loose.out;
  const std::string json_text = loose.out.substr(0, loose.out.rfind('\n', loose.out.size() - 2));
  const auto j = nlohmann::json::parse(json_text);
  EXPECT_EQ(j.at("kind"), "diff");

  // hbm passed before and errored after: lost in the upgrade (docs/diff.md). A check that did not run
  // before and skipped after could not measure: inconclusive.
  EXPECT_EQ(run_gpuqual(fmt::format("diff {} {}", before, after_error)).code, 1);
  EXPECT_EQ(run_gpuqual(fmt::format("diff {} {}", before, after_unmeasured)).code, 2);
  EXPECT_EQ(run_gpuqual(fmt::format("diff {} {} --allowed-drop lots", before, after_same)).code, 3);
  EXPECT_EQ(run_gpuqual(fmt::format("diff {} {} --confidence 95", before, after_same)).code, 3);
  EXPECT_EQ(run_gpuqual(fmt::format("diff {} {}/missing.json", before, dir_.string())).code, 3);
  { std::ofstream(dir_ / "bad.json") << "{\"schema\": \"gpuqual.run/v1\""; }
  EXPECT_EQ(run_gpuqual(fmt::format("diff {} {}", before, (dir_ / "bad.json").string())).code, 3);
}

// Records that belong together (docs/diff.md): the same run twice, and the arguments swapped,
// are exit 3 with both times in the one-line message.
TEST_F(Cli, DiffRefusesTheSameRunTwiceAndSwappedRecords) {
  Jitter jitter{std::mt19937_64(4)};
  const std::string before = write_before("before.json", node_record(jitter, 2));
  const std::string after = write_after("after.json", node_record(jitter, 2));
  const CliRun ok = run_gpuqual(fmt::format("diff {} {}{}", before, after, baselines()));
  ASSERT_EQ(ok.code, 0) << ok.out << ok.err;
  CliRun same = run_gpuqual(fmt::format("diff {} {}{}", before, before, baselines()));
  EXPECT_EQ(same.code, 3) << same.out << same.err;
  EXPECT_NE(same.err.find("the same run as the before-record"), std::string::npos) << same.err;
  EXPECT_NE(same.err.find("started 2026-11-30T12:00:00Z and 2026-11-30T12:00:00Z"), std::string::npos)
      << same.err;
  CliRun swapped = run_gpuqual(fmt::format("diff {} {}{}", after, before, baselines()));
  EXPECT_EQ(swapped.code, 3) << swapped.out << swapped.err;
  EXPECT_NE(swapped.err.find(before +
                             ": $.started_at: the after-run started 2026-11-30T12:00:00Z, before the "
                             "before-run " +
                             after + " ended 2026-12-01T12:03:00Z"),
            std::string::npos)
      << swapped.err;
  // No class baseline anywhere: the after-record cannot be judged as compare judges it.
  CliRun alone =
      run_gpuqual(fmt::format("diff {} {} --baselines-dir {}", before, after, (dir_ / "none").string()));
  EXPECT_EQ(alone.code, 2) << alone.out << alone.err;
  EXPECT_NE(alone.last_line().find("the after-record alone INCONCLUSIVE (no baseline "), std::string::npos)
      << alone.last_line();
  EXPECT_NE(alone.out.find("the after-record cannot be judged as compare judges it"), std::string::npos)
      << alone.out;
}

TEST_F(Cli, BaselineBuildThenGate) {
  Jitter jitter{std::mt19937_64(2)};
  // Whole records: a built baseline requires health, gemm, hbm and pcie (docs/baselines.md).
  for (int i = 0; i < 6; ++i) {
    write(fmt::format("healthy/node-{}.json", i),
          with_health_and_pcie(flat_node_record(jitter, fmt::format("node-{}", i)), jitter));
  }
  const std::string baseline = (dir_ / "h200-sxm-141gb.yaml").string();
  CliRun built =
      run_gpuqual(fmt::format("baseline build {} --output {}", (dir_ / "healthy").string(), baseline));
  EXPECT_EQ(built.code, 0) << built.out;
  EXPECT_NE(built.last_line().find("6 of 6 source records pass against it"), std::string::npos)
      << built.last_line();
  ASSERT_TRUE(fs::exists(baseline));

  // The pool: the six healthy nodes and one slow one, judged against the new baseline.
  for (int i = 0; i < 6; ++i) {
    write(fmt::format("pool/node-{}.json", i),
          with_health_and_pcie(flat_node_record(jitter, fmt::format("node-{}", i)), jitter));
  }
  write("pool/node-6.json",
        with_health_and_pcie(
            flat_node_record(jitter, "node-6", [](int g, int m) { return g == 2 && m == 1 ? 0.9 : 1.0; }),
            jitter));
  const std::string pool = (dir_ / "pool").string();
  CliRun gate = run_gpuqual(fmt::format("gate {} --baseline {}", pool, baseline));
  EXPECT_EQ(gate.code, 1) << gate.out;
  EXPECT_EQ(gate.out.rfind("gpuqual gate: 7 nodes (h200-sxm-141gb)\n", 0), 0u) << gate.out;
  // The pool table (failed node first) comes before the pool rows; no row per node follows.
  const auto table = gate.out.find("\nNODE ");
  ASSERT_NE(table, std::string::npos) << gate.out;
  EXPECT_EQ(gate.out.compare(gate.out.find('\n', table + 1) + 1, 7, "node-6 "), 0) << gate.out;
  EXPECT_LT(table, gate.out.find("\nMETRIC "));
  EXPECT_EQ(gate.out.find("\nCHECK "), std::string::npos) << gate.out;
  EXPECT_EQ(gate.last_line().rfind(
                "gpuqual gate: FAIL 7 nodes (h200-sxm-141gb): 1 failed (node-6: drain), 6 passed", 0),
            0u)
      << gate.last_line();
  // JUnit: one testcase per node and per pool metric (6), the failed node as the one failure.
  const std::string junit = (dir_ / "gate.xml").string();
  EXPECT_EQ(run_gpuqual(fmt::format("gate {} --baseline {} --junit {}", pool, baseline, junit)).code, 1);
  std::stringstream xml;
  xml << std::ifstream(junit).rdbuf();
  EXPECT_NE(xml.str().find("<testsuites name=\"gpuqual\" tests=\"13\" failures=\"1\" errors=\"0\""),
            std::string::npos)
      << xml.str();
  EXPECT_NE(xml.str().find("<testcase classname=\"gpuqual.node-6\" name=\"node-6 node\""), std::string::npos)
      << xml.str();
  EXPECT_EQ(run_gpuqual(fmt::format("gate {} --baseline {} --max-failed 1", pool, baseline)).code, 0);
  EXPECT_EQ(run_gpuqual(fmt::format("gate {} --baseline {} --max-failed 20%", pool, baseline)).code, 0);
  EXPECT_EQ(run_gpuqual(fmt::format("gate {} --baseline {} --max-failed 1 --strict", pool, baseline)).code,
            1);
  EXPECT_EQ(
      run_gpuqual(fmt::format("gate {} --baseline {} --max-failed 1 --expect-nodes 8", pool, baseline)).code,
      2);
  // --baseline auto finds <class>.yaml in --baselines-dir; a class with none is inconclusive.
  EXPECT_EQ(run_gpuqual(fmt::format("gate {} --baselines-dir {} --max-failed 1", pool, dir_.string())).code,
            0);
  EXPECT_EQ(run_gpuqual(fmt::format("gate {} --baselines-dir {}", pool, (dir_ / "healthy").string())).code,
            2);
  EXPECT_EQ(run_gpuqual(fmt::format("gate {} --baseline {} --max-failed x", pool, baseline)).code, 3);
  EXPECT_EQ(run_gpuqual(fmt::format("gate {}/nothing.json --baseline {}", pool, baseline)).code, 3);

  // Build from a directory holding an unhealthy record: it is left out and listed.
  RunRecord sick = flat_node_record(jitter, "node-9");
  sick.checks[0].status = Status::fail;
  sick.checks[0].reason = "wrong result";
  write("healthy/node-9.json", sick);
  CliRun again = run_gpuqual(fmt::format("baseline build {} -o {}", (dir_ / "healthy").string(), baseline));
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("left out: " + (dir_ / "healthy/node-9.json").string() +
                           " (node-9): check gemm failed: wrong result"),
            std::string::npos)
      << again.out;
  EXPECT_EQ(run_gpuqual(fmt::format("baseline build {} -o {}", (dir_ / "healthy/node-9.json").string(),
                                    (dir_ / "none.yaml").string()))
                .code,
            2);
  EXPECT_FALSE(fs::exists(dir_ / "none.yaml"));
  EXPECT_EQ(run_gpuqual("baseline build").code, 3);
}

// baseline build takes several records: one run given twice (the same file, or a copy) would
// count twice in every median, so it is refused (exit 3) before anything is built.
TEST_F(Cli, BaselineBuildRefusesTheSameRunTwice) {
  Jitter jitter{std::mt19937_64(5)};
  const std::string one = write("in/node-0.json", flat_node_record(jitter, "node-0"));
  write("in/node-1.json", flat_node_record(jitter, "node-1"));
  fs::copy_file(one, dir_ / "copy.json");
  const std::string out = (dir_ / "b.yaml").string();
  for (const std::string& twice : {one, (dir_ / "copy.json").string()}) {
    const CliRun r =
        run_gpuqual(fmt::format("baseline build {} {} -o {}", (dir_ / "in").string(), twice, out));
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("the same run as " + one + " (run_id run-node-0"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

// diff and gate verdicts in every file format, read by the same checker as the golden reports
// (tests/integration/check_report_formats.py: the verdict JSON Schema, ElementTree for JUnit,
// the Prometheus text parser).
TEST_F(Cli, DiffAndGateReportsPassTheFormatChecker) {
  if (std::system("python3 -c 'import jsonschema, prometheus_client' >/dev/null 2>&1") != 0) {
    // Required components (scripts/install-deps.sh installs them): missing fails, never skips.
    FAIL()
        << "python3 with jsonschema and prometheus_client is needed (scripts/install-deps.sh installs them)";
  }
  Jitter jitter{std::mt19937_64(3)};
  const std::string before = write_before("in/before.json", node_record(jitter, 2));
  RunRecord after = node_record(jitter, 2, [](int g, int m) { return g == 0 && m == 2 ? 0.9 : 1.0; });
  after.node.driver_version = "580.65.06";
  write_after("in/after.json", after);
  for (int i = 0; i < 4; ++i)
    write(fmt::format("pool/node-{}.json", i), flat_node_record(jitter, fmt::format("node-{}", i)));
  write("pool/node-4.json",
        flat_node_record(jitter, "node-4", [](int, int m) { return m == 0 ? 0.9 : 1.0; }));
  const fs::path out = dir_ / "reports";
  fs::create_directories(out);
  const std::string yaml = baseline_file();
  const std::string broken = (dir_ / "broken.json").string();
  std::ofstream(broken) << "{\"schema\": \"gpuqual.run/v1\", \"run_id\": ";
  auto reports = [&](const std::string& name) {
    return fmt::format(
        "--format json --junit {0}/{1}.junit.xml --prometheus {0}/{1}.prom --markdown {0}/{1}.md",
        out.string(), name);
  };
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
           {"diff", fmt::format("diff {} {} --baseline {}", before, (dir_ / "in/after.json").string(), yaml)},
           {"gate", fmt::format("gate {} --baseline {}", (dir_ / "pool").string(), yaml)},
           // A pool with an unreadable record: its error node is valid in every format too.
           {"gate-unreadable",
            fmt::format("gate {} {} --baseline {}", (dir_ / "pool").string(), broken, yaml)}}) {
    CliRun r = run_gpuqual(fmt::format("{} {}", args, reports(name)));
    EXPECT_EQ(r.code, 1) << r.out;
    std::ofstream(out / (name + ".json")) << r.out.substr(0, r.out.rfind('\n', r.out.size() - 2) + 1);
  }
  const std::string check = fmt::format(
      "python3 {0}/tests/integration/check_report_formats.py --schema {0}/schemas/verdict.v1.schema.json "
      "--golden {1}",
      GPUQUAL_SOURCE_DIR, out.string());
  EXPECT_EQ(std::system(check.c_str()), 0) << check;
}
