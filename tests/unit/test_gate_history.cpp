// gate over a node's records in time (docs/gate.md, "A node's runs over time"): the order by boot
// and uptime, one machine under two names, one run in two files, --consecutive, flaky.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "core/judge/gate.hpp"
#include "core/judge/gate_stream.hpp"
#include "core/record/record_io.hpp"
#include "core/verdict/record_history.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

std::string host(int i) { return "node-0" + std::to_string(i); }

Verdict gate(const std::vector<RunRecord>& records, const Baseline& b, const GateOptions& o = {}) {
  GatePool pool(o);
  for (std::size_t i = 0; i < records.size(); ++i) {
    pool.add(summarize_node(records[i], &b, o, "rec-" + std::to_string(i) + ".json", i), &b);
  }
  return pool.finish();
}

bool has_reason(const Verdict& v, const std::string& text) {
  for (const auto& r : v.reasons) {
    if (r.find(text) != std::string::npos) return true;
  }
  return false;
}

const Verdict* node_verdict(const Verdict& v, const std::string& name) {
  for (const auto& n : v.nodes) {
    if (n.hostname == name) return &n;
  }
  return nullptr;
}

// A pool of three healthy nodes, each in a boot of its own.
std::vector<RunRecord> three_nodes(Jitter& jitter) {
  std::vector<RunRecord> out;
  for (int i = 0; i < 3; ++i) {
    RunRecord r = flat_node_record(jitter, host(i));
    r.node.boot_id = "boot-" + host(i);
    r.node.uptime_s = 1000;
    out.push_back(r);
  }
  return out;
}

// A record of node-01 in `boot` at `uptime`, started at `started`, passing or failing.
RunRecord run_of(Jitter& jitter, const std::string& boot, double uptime, const std::string& started,
                 bool pass, const std::string& run_id) {
  RunRecord r =
      flat_node_record(jitter, host(1), [&](int g, int m) { return !pass && g == 0 && m == 0 ? 0.8 : 1.0; });
  r.node.boot_id = boot;
  r.node.uptime_s = uptime;
  r.started_at = started;
  r.run_id = run_id;
  return r;
}

struct Run {
  const char* boot;
  double uptime;
  const char* started;
  bool pass;
};

// node-00 and node-02 (one healthy record each), then node-01's `runs`, named run-1, run-2, ...
std::vector<RunRecord> pool_with(Jitter& jitter, const std::vector<Run>& runs) {
  auto records = three_nodes(jitter);
  records.erase(records.begin() + 1);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    records.push_back(run_of(jitter, r.boot, r.uptime, r.started, r.pass, "run-" + std::to_string(i + 1)));
  }
  return records;
}

GateOptions with_current_boot(const std::string& node, const std::string& boot) {
  GateOptions o;
  auto nodes = std::make_shared<CurrentNodes>();
  (*nodes)[node] = CurrentNode{node, boot, "", "", ""};
  for (int i = 0; i < 3; ++i) (*nodes)[host(i)].name = host(i);
  for (int i = 0; i < 3; ++i) {
    if (host(i) != node) (*nodes)[host(i)].boot_id = "boot-" + host(i);
  }
  o.freshness.nodes = nodes;
  return o;
}

}  // namespace

TEST(GateHistory, AnOldPassNeverHidesANewerFailAfterAClockReset) {
  Jitter jitter{std::mt19937_64(31)};
  const Baseline b = counted(class_baseline());
  // The failing run came after a reboot that reset the clock: its started_at is years older.
  auto records = pool_with(jitter, {{"boot-old", 5000, "2026-11-30T12:00:00Z", true},
                                    {"boot-new", 60, "2020-01-01T00:01:00Z", false}});
  const Verdict v = gate(records, b);
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_TRUE(has_reason(v, "node node-01: which of its records is the newest cannot be told (2 boots"))
      << v.summary;
  ASSERT_NE(node_verdict(v, host(1)), nullptr);
  EXPECT_EQ(node_verdict(v, host(1))->outcome, Outcome::fail);
  // The order of the arguments does not change it.
  std::swap(records[2], records[3]);
  EXPECT_EQ(gate(records, b).outcome, Outcome::fail);
  // The Node's current boot orders the boots: the run of boot-new is the newest, and fails.
  EXPECT_EQ(gate(records, b, with_current_boot(host(1), "boot-new")).outcome, Outcome::fail);
  // Had the pass been the current boot's, it would count.
  const Verdict current = gate(records, b, with_current_boot(host(1), "boot-old"));
  EXPECT_EQ(current.outcome, Outcome::pass) << current.summary;
  EXPECT_TRUE(has_reason(current, "node node-01: more than one record, the newest counts: "));
}

TEST(GateHistory, WithinABootUptimeOrdersTheRunsNotTheClock) {
  Jitter jitter{std::mt19937_64(32)};
  const Baseline b = counted(class_baseline());
  // NTP stepped the clock back between the runs: uptime still says which came later.
  auto records = pool_with(jitter, {{"boot-1", 100, "2026-11-30T12:00:00Z", true},
                                    {"boot-1", 200, "2026-11-29T12:00:00Z", false}});
  EXPECT_EQ(gate(records, b).outcome, Outcome::fail);
  records[3].node.uptime_s = 50;  // the fail came first
  const Verdict v = gate(records, b);
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
}

TEST(GateHistory, RecordsWithoutABootIdAreNotOrderedByTheirClock) {
  Jitter jitter{std::mt19937_64(33)};
  const Baseline b = counted(class_baseline());
  auto records =
      pool_with(jitter, {{"", 100, "2026-11-30T12:00:00Z", true}, {"", 200, "2026-11-29T12:00:00Z", false}});
  EXPECT_EQ(gate(records, b).outcome, Outcome::fail);
}

TEST(GateHistory, OneMachineUnderTwoNamesCountsOnce) {
  Jitter jitter{std::mt19937_64(34)};
  const Baseline b = counted(class_baseline());
  auto records = three_nodes(jitter);
  // The same box's second run, under its pod's name: the same GPUs.
  RunRecord again = records[0];
  again.node.hostname = "gpuqual-canary-7";
  again.run_id = "run-again";
  records.push_back(again);
  GateOptions o;
  o.expect_nodes = 4;
  const Verdict v = gate(records, b, o);
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_TRUE(has_reason(
      v,
      "3 distinct nodes (4 names; node gpuqual-canary-7 and node-00 are one machine (same GPU UUIDs)), "
      "--expect-nodes 4"))
      << v.summary;
  EXPECT_NE(v.summary.find("node gpuqual-canary-7 and node-00 are one machine (same GPU UUIDs)"),
            std::string::npos)
      << v.summary;
  o.expect_nodes = 3;
  EXPECT_EQ(gate(records, b, o).outcome, Outcome::pass);
  // A GPU swapped since: the other seven are still the same machine's.
  records.back().gpus.back().uuid += "-new";
  o.expect_nodes = 4;
  EXPECT_EQ(gate(records, b, o).outcome, Outcome::inconclusive);
  // Distinct GPUs: four machines.
  for (auto& g : records.back().gpus) g.uuid += "-other";
  EXPECT_EQ(gate(records, b, o).outcome, Outcome::pass);
}

TEST(GateHistory, ConsecutivePassesSinceTheLastFailure) {
  Jitter jitter{std::mt19937_64(35)};
  const Baseline b = counted(class_baseline());
  auto records = pool_with(jitter, {{"boot-1", 100, "2026-11-30T10:00:00Z", false},
                                    {"boot-1", 200, "2026-11-30T11:00:00Z", false},
                                    {"boot-1", 300, "2026-11-30T12:00:00Z", true},
                                    {"boot-1", 400, "2026-11-30T13:00:00Z", true}});
  GateOptions o;
  o.consecutive = 2;
  EXPECT_EQ(node_verdict(gate(records, b, o), host(1))->outcome, Outcome::pass);
  o.consecutive = 3;
  const Verdict v = gate(records, b, o);
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_NE(v.summary.find("; 3 duplicate records ignored"), std::string::npos) << v.summary;
  const Verdict* n = node_verdict(v, host(1));
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->outcome, Outcome::inconclusive);
  ASSERT_FALSE(n->reasons.empty());
  EXPECT_EQ(n->reasons.front(),
            "2 passing runs in a row since its last non-passing run; --consecutive 3 needs 3");
  // Nodes with one record have one passing run.
  EXPECT_EQ(node_verdict(v, host(0))->outcome, Outcome::inconclusive);
  // Passes in another boot, with no order to the failing one, do not follow it provably.
  records[3].node.boot_id = records[4].node.boot_id = "boot-2";
  records[2].node.uptime_s = 10;  // the fail newest of boot-1
  o.consecutive = 2;
  EXPECT_NE(node_verdict(gate(records, b, o), host(1))->outcome, Outcome::pass);
}

TEST(GateHistory, AlternatingRunsAreFlaky) {
  Jitter jitter{std::mt19937_64(36)};
  const Baseline b = counted(class_baseline());
  auto records = pool_with(jitter, {{"boot-1", 100, "2026-11-30T10:00:00Z", true},
                                    {"boot-1", 200, "2026-11-30T11:00:00Z", false},
                                    {"boot-1", 300, "2026-11-30T12:00:00Z", true}});
  const Verdict v = gate(records, b);
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_NE(v.summary.find("; flaky: node-01"), std::string::npos) << v.summary;
  EXPECT_TRUE(has_reason(v, "1 node is flaky (runs alternate between pass and fail): node-01"));
  const Verdict* n = node_verdict(v, host(1));
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->outcome, Outcome::warn);
  ASSERT_FALSE(n->reasons.empty());
  EXPECT_EQ(n->reasons.front(), "flaky: its runs alternate between pass and fail (pass, fail, pass)");
  // Repaired once and passing since: not flaky.
  records.erase(records.begin() + 2);
  EXPECT_EQ(gate(records, b).outcome, Outcome::pass);
}

TEST(GateHistory, JudgeHistoryOnItsOwn) {
  auto run = [](std::string boot, double up, std::size_t order, Outcome o) {
    return RunPoint{std::move(boot), up, std::nullopt, order, o, std::nullopt};
  };
  EXPECT_EQ(run_order(run("a", 1, 0, Outcome::pass), run("a", 2, 1, Outcome::pass), ""), RunOrder::before);
  EXPECT_EQ(run_order(run("a", 1, 0, Outcome::pass), run("b", 2, 1, Outcome::pass), ""), RunOrder::unknown);
  EXPECT_EQ(run_order(run("a", 1, 0, Outcome::pass), run("b", 2, 1, Outcome::pass), "a"), RunOrder::after);
  EXPECT_EQ(run_order(run("", 1, 0, Outcome::pass), run("", 2, 1, Outcome::pass), ""), RunOrder::unknown);
  const std::vector<RunPoint> runs{run("a", 1, 0, Outcome::fail), run("b", 5, 1, Outcome::pass),
                                   run("b", 6, 2, Outcome::pass)};
  RunHistory h = judge_history(runs, "", false);
  EXPECT_FALSE(h.order_known);
  EXPECT_EQ(h.counted, 0u);  // the worst of the newest of each boot
  EXPECT_EQ(h.passes_in_a_row, 0u);
  EXPECT_EQ(h.boots, 2u);
  h = judge_history(runs, "b", false);
  EXPECT_TRUE(h.order_known);
  EXPECT_EQ(h.counted, 2u);
  EXPECT_EQ(h.passes_in_a_row, 2u);
  // A warn is a passing run, except under --strict.
  const std::vector<RunPoint> warned{run("a", 1, 0, Outcome::pass), run("a", 2, 1, Outcome::warn)};
  EXPECT_EQ(judge_history(warned, "", false).passes_in_a_row, 2u);
  EXPECT_EQ(judge_history(warned, "", true).passes_in_a_row, 0u);
}

namespace {

class GateFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / ("gpuqual-gate-files-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    Jitter jitter{std::mt19937_64(37)};
    for (int i = 0; i < 3; ++i) write_record(path(host(i)), flat_node_record(jitter, host(i)));
    baselines_ = std::make_unique<FixedBaselines>(std::vector<Baseline>{counted(class_baseline())});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / (name + ".json")).string(); }
  std::vector<std::string> all() const { return {path(host(0)), path(host(1)), path(host(2))}; }

  std::filesystem::path dir_;
  std::unique_ptr<FixedBaselines> baselines_;
};

}  // namespace

TEST_F(GateFiles, TheSameFileTwiceIsAnInputError) {
  EXPECT_EQ(gate_records(all(), *baselines_, GateOptions{}, 1).outcome, Outcome::pass);
  auto twice = all();
  twice.push_back(path(host(1)));
  EXPECT_THROW(gate_records(twice, *baselines_, GateOptions{}, 1), InputError);
  // The directory and a file in it.
  auto both = expand_record_paths({dir_.string(), path(host(0))});
  try {
    gate_records(both, *baselines_, GateOptions{}, 1);
    ADD_FAILURE() << "a file given twice was judged";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the same file as"), std::string::npos) << e.what();
  }
  // A copy of the same bytes under another name.
  std::filesystem::copy_file(path(host(1)), path("copy"));
  auto copied = all();
  copied.push_back(path("copy"));
  try {
    gate_records(copied, *baselines_, GateOptions{}, 1);
    ADD_FAILURE() << "a copied record was judged";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("identical contents"), std::string::npos) << e.what();
  }
}

TEST_F(GateFiles, OneRunInTwoFilesIsOneRunAndTheCompleteOneCounts) {
  Jitter jitter{std::mt19937_64(38)};
  // The final record of node-01's run failed; an interrupted snapshot of the same run passed so far.
  RunRecord final_record =
      flat_node_record(jitter, host(1), [](int g, int m) { return g == 0 && m == 0 ? 0.8 : 1.0; });
  write_record(path(host(1)), final_record);
  RunRecord snapshot = flat_node_record(jitter, host(1));
  snapshot.complete = false;
  snapshot.ended_at = "";
  write_record(path("snapshot"), snapshot);
  auto paths = all();
  paths.push_back(path("snapshot"));  // given last: the later argument would win
  const Verdict v = gate_records(paths, *baselines_, GateOptions{}, 1);
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  bool noted = false;
  for (const auto& r : v.reasons)
    noted |= r.find("run run-node-01 is in two files") != std::string::npos &&
             r.find("the complete one counts: " + path(host(1))) != std::string::npos;
  EXPECT_TRUE(noted) << v.summary;
  EXPECT_EQ(v.nodes.size(), 3u);
}

TEST(GateHistory, AWithheldRunIsNotAPassingOneForConsecutive) {
  Jitter jitter{std::mt19937_64(39)};
  const Baseline b = counted(class_baseline());
  auto records = pool_with(
      jitter, {{"boot-1", 100, "2026-11-20T10:00:00Z", true}, {"boot-1", 200, "2026-11-30T10:00:00Z", true}});
  records[2].ended_at = records[2].started_at;
  records[3].ended_at = records[3].started_at;
  GateOptions o;
  o.consecutive = 2;
  EXPECT_EQ(node_verdict(gate(records, b, o), host(1))->outcome, Outcome::pass);
  // The first pass is older than --max-age: one pass within the age, not two.
  o.freshness.max_age_s = 7 * 86400;
  o.freshness.now_ms = *parse_rfc3339_ms("2026-12-01T10:00:00Z");
  const Verdict v = gate(records, b, o);
  const Verdict* n = node_verdict(v, host(1));
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->outcome, Outcome::inconclusive) << n->summary;
}
