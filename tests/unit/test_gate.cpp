#include "core/judge/gate.hpp"

#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "core/judge/gate_stream.hpp"
#include "core/judge/gate_summary.hpp"
#include "core/record/record_io.hpp"
#include "runner/cli/gate_pool_flags.hpp"
#include "runner/reporters/reporters.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

std::string host(int i) { return fmt::format("node-{:02d}", i); }

// Judges `records` as one pool (in memory, in order) against the baselines given.
Verdict gate(const std::vector<RunRecord>& records, const std::vector<const Baseline*>& baselines,
             GateOptions o = {}) {
  GatePool pool(o);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Baseline* b = nullptr;
    for (const Baseline* c : baselines) {
      if (c->hardware_class == records[i].hardware_class.slug) b = c;
    }
    pool.add(summarize_node(records[i], b, o, "rec-" + std::to_string(i) + ".json", i), b);
  }
  return pool.finish();
}

template <class Scale>
std::vector<RunRecord> pool_of(int n, Jitter& jitter, Scale scale_for_node) {
  std::vector<RunRecord> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(flat_node_record(jitter, host(i), [&](int g, int m) { return scale_for_node(i, g, m); }));
  }
  return out;
}

std::vector<RunRecord> healthy_pool(int n, Jitter& jitter) {
  return pool_of(n, jitter, [](int, int, int) { return 1.0; });
}

const MetricRow* pool_row(const Verdict& v, const std::string& metric) {
  for (const auto& m : v.metrics) {
    if (m.metric == metric) return &m;
  }
  return nullptr;
}

bool has_reason(const Verdict& v, const std::string& text) {
  for (const auto& r : v.reasons) {
    if (r.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST(Gate, HealthyPoolPasses) {
  Jitter jitter{std::mt19937_64(1)};
  const Baseline b = class_baseline();
  Verdict v = gate(healthy_pool(8, jitter), {&b});
  EXPECT_EQ(v.kind, "gate");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.nodes.size(), 8u);
  EXPECT_EQ(v.metrics.size(), 5u);  // one pool row per baseline metric
  for (const auto& m : v.metrics) EXPECT_EQ(m.status, Status::pass) << m.metric << ": " << m.reason;
  EXPECT_EQ(v.checks.size(), 8u + 5u);  // a JUnit testcase per node and per pool metric
  EXPECT_EQ(v.hardware_class, "h200-sxm-141gb");
  EXPECT_NE(v.summary.find("gpuqual gate: PASS 8 nodes (h200-sxm-141gb): 8 passed; pool: 5 metrics within"),
            std::string::npos)
      << v.summary;
}

TEST(Gate, OneBadNodeFailsThePool) {
  Jitter jitter{std::mt19937_64(2)};
  const Baseline b = class_baseline();
  auto records =
      pool_of(8, jitter, [](int node, int g, int m) { return node == 5 && g == 3 && m == 0 ? 0.90 : 1.0; });
  Verdict v = gate(records, {&b});
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_EQ(v.exit_code, 1);
  ASSERT_FALSE(v.nodes.empty());
  EXPECT_EQ(v.nodes.front().hostname, "node-05");  // failed nodes first
  EXPECT_EQ(v.nodes.front().outcome, Outcome::fail);
  ASSERT_FALSE(v.nodes.front().metrics.empty());
  EXPECT_EQ(v.nodes.front().metrics.front().metric, "gemm.bf16.tflops");  // its worst metric leads
  EXPECT_EQ(v.nodes.front().metrics.front().gpu, 3);
  EXPECT_TRUE(has_reason(v, "1 of 8 nodes failed, more than --max-failed 0 allows: node-05"))
      << v.reasons.front();
  for (const auto& m : v.metrics)
    EXPECT_EQ(m.status, Status::pass) << "one node does not move the pool median";
  EXPECT_NE(v.summary.find("1 failed (node-05: drain), 7 passed"), std::string::npos) << v.summary;
  EXPECT_EQ(v.action, NodeAction::drain);  // a regressed metric drains (docs/actions.md)

  // Within the failure budget the pool only warns (and --strict makes that a failure).
  GateOptions one;
  one.max_failed = 1;
  Verdict budget = gate(records, {&b}, one);
  EXPECT_EQ(budget.outcome, Outcome::warn) << budget.summary;
  EXPECT_EQ(budget.exit_code, 0);
  GateOptions pct;
  pct.max_failed_pct = 12.5;  // 12.5 % of 8 = 1 node
  EXPECT_EQ(gate(records, {&b}, pct).outcome, Outcome::warn);
  pct.max_failed_pct = 10;  // 0.8 → 0 nodes
  EXPECT_EQ(gate(records, {&b}, pct).outcome, Outcome::fail);
  one.strict = true;
  EXPECT_EQ(gate(records, {&b}, one).exit_code, 1);
}

TEST(Gate, PoolWideDropFailsEvenThoughEveryNodePasses) {
  Jitter jitter{std::mt19937_64(3)};
  const Baseline b = class_baseline();
  // 4 % below the baseline on every node: inside the 5 % tolerance of each node alone.
  auto records = pool_of(8, jitter, [](int, int, int m) { return m == 2 ? 0.96 : 1.0; });
  Verdict v = gate(records, {&b});
  for (const auto& n : v.nodes) EXPECT_EQ(n.outcome, Outcome::pass) << n.hostname << ": " << n.summary;
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  const MetricRow* row = pool_row(v, "hbm.triad.gbps");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->status, Status::fail) << row->reason;
  EXPECT_NEAR(*row->delta_pct, -4.0, 0.3);
  EXPECT_DOUBLE_EQ(row->allowed_drop_pct, 2.0);
  EXPECT_NE(v.summary.find("pool: 1 of 5 metrics regressed (hbm.triad.gbps"), std::string::npos) << v.summary;
  // A looser pool allowance lets it through.
  GateOptions loose;
  loose.pool_allowed_drop = 0.05;
  EXPECT_EQ(gate(records, {&b}, loose).outcome, Outcome::pass);
}

TEST(Gate, TwoNodesAreTooFewForAPoolJudgement) {
  Jitter jitter{std::mt19937_64(4)};
  const Baseline b = class_baseline();
  auto records = pool_of(2, jitter, [](int, int, int m) { return m == 2 ? 0.96 : 1.0; });
  Verdict v = gate(records, {&b});
  EXPECT_EQ(pool_row(v, "hbm.triad.gbps")->status, Status::skip);
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
}

TEST(Gate, TooFewNodesIsInconclusive) {
  Jitter jitter{std::mt19937_64(5)};
  const Baseline b = class_baseline();
  GateOptions o;
  o.expect_nodes = 10;
  Verdict v = gate(healthy_pool(8, jitter), {&b}, o);
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_EQ(v.reasons.front(), "8 distinct nodes, --expect-nodes 10");
  o.expect_nodes = 8;
  EXPECT_EQ(gate(healthy_pool(8, jitter), {&b}, o).outcome, Outcome::pass);
  EXPECT_EQ(gate({}, {&b}, o).outcome, Outcome::inconclusive);
}

TEST(Gate, MixedClassesAreEachJudgedAgainstTheirOwnBaseline) {
  Jitter jitter{std::mt19937_64(6)};
  const Baseline h200 = class_baseline("h200-sxm-141gb", 1000);
  const Baseline h100 = class_baseline("h100-sxm-80gb", 700);
  std::vector<RunRecord> records;
  for (int i = 0; i < 4; ++i)
    records.push_back(flat_node_record(
        jitter, host(i), [](int, int) { return 1.0; }, 8, "h200-sxm-141gb", 1000));
  for (int i = 4; i < 8; ++i)
    records.push_back(flat_node_record(
        jitter, host(i), [](int, int) { return 1.0; }, 8, "h100-sxm-80gb", 700));
  Verdict v = gate(records, {&h200, &h100});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_EQ(v.metrics.size(), 10u);  // five pool rows per class
  EXPECT_EQ(v.hardware_class, "h100-sxm-80gb,h200-sxm-141gb");
  // Against one baseline only, the other class cannot be judged: inconclusive, never pass.
  Verdict half = gate(records, {&h200});
  EXPECT_EQ(half.outcome, Outcome::inconclusive) << half.summary;
  EXPECT_TRUE(has_reason(half, "no baseline for class h100-sxm-80gb (4 nodes)"));
  // A slow H100 node fails against the H100 baseline, and only the H100 pool carries it.
  records[5] = flat_node_record(
      jitter, host(5), [](int, int m) { return m == 0 ? 0.9 : 1.0; }, 8, "h100-sxm-80gb", 700);
  Verdict slow = gate(records, {&h200, &h100});
  EXPECT_EQ(slow.outcome, Outcome::fail);
  EXPECT_EQ(slow.nodes.front().hostname, "node-05");
  EXPECT_EQ(slow.nodes.front().hardware_class, "h100-sxm-80gb");
}

TEST(Gate, DuplicateRecordsNewestCounts) {
  Jitter jitter{std::mt19937_64(7)};
  const Baseline b = class_baseline();
  auto records = healthy_pool(6, jitter);
  for (auto& r : records) {
    r.node.boot_id = "boot-" + r.node.hostname;
    r.node.uptime_s = 7200;
  }
  RunRecord bad =
      flat_node_record(jitter, host(2), [](int g, int m) { return g == 0 && m == 1 ? 0.8 : 1.0; });
  bad.started_at = "2026-11-30T11:00:00Z";  // an hour before the good one, in the same boot
  bad.node.boot_id = "boot-" + host(2);
  bad.node.uptime_s = 3600;
  bad.run_id = "run-old";
  records.push_back(bad);
  Verdict v = gate(records, {&b});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_EQ(v.nodes.size(), 6u);
  EXPECT_TRUE(has_reason(v,
                         "node node-02: more than one record, the newest counts: rec-2.json (started "
                         "2026-11-30T12:00:00Z) over rec-6.json"));
  EXPECT_NE(v.summary.find("1 duplicate record ignored"), std::string::npos) << v.summary;
  // Newer in the boot (its uptime is larger) and bad: the bad one counts, whatever its clock says.
  records.back().node.uptime_s = 9000;
  EXPECT_EQ(gate(records, {&b}).outcome, Outcome::fail);
  // The same uptime: the start time breaks the tie, then the later argument.
  records.back().node.uptime_s = 7200;
  records.back().started_at =
      "2026-11-30T13:00:00+01:00";  // same instant as 12:00Z: a tie, later argument wins
  EXPECT_EQ(gate(records, {&b}).outcome, Outcome::fail);
  records.back().started_at = "2026-11-30T12:00:00.5Z";
  EXPECT_EQ(gate(records, {&b}).outcome, Outcome::fail);
}

TEST(Gate, NodeIdentityPrefersTheKubernetesNodeName) {
  Jitter jitter{std::mt19937_64(8)};
  const Baseline b = class_baseline();
  auto records = healthy_pool(4, jitter);
  for (auto& r : records) r.node.hostname = "gpuqual-canary-pod";  // pods share a hostname
  for (std::size_t i = 0; i < records.size(); ++i) records[i].node.k8s_node_name = host(static_cast<int>(i));
  const Verdict v = gate(records, {&b});
  ASSERT_EQ(v.nodes.size(), 4u);
  std::set<std::string> names;
  for (const auto& n : v.nodes) names.insert(n.hostname);  // each node's verdict names its node
  EXPECT_EQ(names, (std::set<std::string>{host(0), host(1), host(2), host(3)}));
}

TEST(Gate, Rfc3339) {
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T00:00:01.250Z"), 1250);
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(parse_rfc3339_ms("2026-11-30T12:00:00Z"), 1796040000000);  // date -u -d ... +%s
  EXPECT_FALSE(parse_rfc3339_ms(""));
  EXPECT_FALSE(parse_rfc3339_ms("2026-11-30"));
  EXPECT_FALSE(parse_rfc3339_ms("2026-11-30T12:00:00"));  // no zone: ambiguous
  EXPECT_FALSE(parse_rfc3339_ms("2026-11-30T12:00:00Zjunk"));
}

// The form the record's schema states ($defs/rfc3339), which the reader holds a completed run to.
TEST(Gate, Rfc3339TextIsTheSchemasForm) {
  for (const char* ok :
       {"2026-11-30T12:00:00Z", "2026-11-30t12:00:00z", "2026-11-30 12:00:00Z", "2026-11-30T12:00:00.250Z",
        "2026-11-30T12:00:00+01:00", "2026-12-31T23:59:60-23:59"}) {
    EXPECT_TRUE(is_rfc3339_text(ok)) << ok;
  }
  for (const char* bad : {"", "x", "2026-11-30", "2026-11-30T12:00:00", "2026-11-30T12:00:00Zjunk",
                          "2026-13-30T12:00:00Z", "2026-11-00T12:00:00Z", "2026-11-30T24:00:00Z",
                          "2026-11-30T12:60:00Z", "2026-11-30T12:00:61Z", "2026-11-30T12:00:00.Z",
                          "2026-11-30T12:00:00+1:00", "2026-11-30T12:00:00+24:00", " 2026-11-30T12:00:00Z",
                          "2026-1-30T12:00:00Z", "2026-11-30X12:00:00Z", "2026-11-30T12:00:00+01:00 "}) {
    EXPECT_FALSE(is_rfc3339_text(bad)) << bad;
  }
}

TEST(Gate, PoolTableListsNodesThatDidNotPassFirst) {
  Jitter jitter{std::mt19937_64(9)};
  const Baseline b = class_baseline();
  auto records =
      pool_of(30, jitter, [](int node, int g, int m) { return node == 17 && g == 1 && m == 3 ? 0.85 : 1.0; });
  Verdict v = gate(records, {&b});
  const std::string table = render_pool_table(v, 5);
  EXPECT_EQ(table.rfind("NODE", 0), 0u) << table;
  const auto first_row = table.find('\n') + 1;
  EXPECT_EQ(table.compare(first_row, 7, "node-17"), 0) << table;
  EXPECT_NE(table.find("hbm.copy.gbps gpu 1 -15."), std::string::npos) << table;
  EXPECT_NE(table.find("... and 24 more passing nodes"), std::string::npos) << table;
}

TEST(Gate, TrimKeepsTheWorstRowsAndEveryFailure) {
  Verdict v;
  for (int i = 0; i < 10; ++i) {
    MetricRow m;
    m.metric = "m" + std::to_string(i);
    m.delta_pct = -0.1 * i;
    m.allowed_drop_pct = 5;
    m.status = Status::pass;
    v.metrics.push_back(m);
  }
  v.metrics[2].status = Status::error;
  v.metrics[2].delta_pct.reset();
  trim_node_verdict(v, 20, 3);
  ASSERT_EQ(v.metrics.size(), 4u);
  EXPECT_EQ(v.metrics[0].metric, "m9");
  EXPECT_EQ(v.metrics[1].metric, "m8");
  EXPECT_EQ(v.metrics[2].metric, "m7");
  EXPECT_EQ(v.metrics[3].metric, "m2");
}

TEST(Gate, StreamsRecordFilesFromADirectory) {
  namespace fs = std::filesystem;
  Jitter jitter{std::mt19937_64(10)};
  const fs::path dir = fs::path(::testing::TempDir()) / "gpuqual-gate-stream";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto records = pool_of(12, jitter, [](int node, int, int m) { return node == 4 && m == 0 ? 0.9 : 1.0; });
  for (std::size_t i = 0; i < records.size(); ++i)
    write_record((dir / (host(static_cast<int>(i)) + ".json")).string(), records[i]);
  { std::ofstream(dir / "gate.md") << "not a record"; }
  std::vector<Baseline> owned{class_baseline()};
  FixedBaselines baselines(std::move(owned));
  const auto paths = expand_record_paths({dir.string()});
  ASSERT_EQ(paths.size(), 12u);
  Verdict one = gate_records(paths, baselines, GateOptions{}, 1);
  Verdict two = gate_records(paths, baselines, GateOptions{}, 2);
  EXPECT_EQ(one.outcome, Outcome::fail);
  EXPECT_EQ(one.summary, two.summary);
  ASSERT_EQ(one.nodes.size(), 12u);
  EXPECT_EQ(one.nodes.front().hostname, "node-04");
  // Malformed records do not stop the gate: each is an `error` node naming its file, counted
  // toward --max-failed, and every readable record is still judged.
  { std::ofstream(dir / "node-07.json") << "{\"schema\": "; }
  { std::ofstream(dir / "node-09.json") << "[]"; }
  const auto with_bad = expand_record_paths({dir.string()});
  const Verdict bad = gate_records(with_bad, baselines, GateOptions{}, 2);
  EXPECT_EQ(bad.outcome, Outcome::fail);  // 1 failed + 2 unreadable > --max-failed 0
  EXPECT_TRUE(has_reason(bad, "3 of 12 nodes did not qualify (1 failed, 2 unreadable)"))
      << bad.reasons.front();
  EXPECT_TRUE(has_reason(bad, "2 records could not be read"));
  ASSERT_EQ(bad.nodes.size(), 12u);
  std::size_t unreadable = 0;
  for (const auto& c : bad.checks) {
    if (c.check == (dir / "node-07.json").string()) {
      ++unreadable;
      EXPECT_EQ(c.status, Status::error);
      EXPECT_NE(c.reason.find("line 1, column"), std::string::npos) << c.reason;
    }
    if (c.check == (dir / "node-09.json").string()) ++unreadable;
  }
  EXPECT_EQ(unreadable, 2u);
  GateOptions lenient;
  lenient.max_failed = 3;
  // Within the budget the pool is still not a pass: at best inconclusive.
  EXPECT_EQ(gate_records(with_bad, baselines, lenient, 1).outcome, Outcome::inconclusive);
  // Not one readable record: the first bad file is the input error.
  try {
    gate_records({(dir / "node-07.json").string(), (dir / "node-09.json").string()}, baselines, GateOptions{},
                 2);
    ADD_FAILURE() << "a pool of malformed records was judged";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), (dir / "node-07.json").string());
  }
  EXPECT_THROW(expand_record_paths({(dir / "missing.json").string()}), InputError);
  fs::remove_all(dir);
}

namespace {

// `records[i]` in the NVL72 rack `rack` (GFD's clique label: <cluster UUID>.<clique id>).
void in_rack(std::vector<RunRecord>& records, std::initializer_list<int> nodes, const std::string& rack,
             int clique) {
  for (int i : nodes)
    records[static_cast<std::size_t>(i)].node.k8s_labels[kCliqueLabel] = rack + "." + std::to_string(clique);
}

}  // namespace

TEST(Gate, ARackIsJudgedWholeItsFailedNodeHoldsTheOthers) {
  Jitter jitter{std::mt19937_64(21)};
  const Baseline b = class_baseline();
  auto records =
      pool_of(8, jitter, [](int node, int g, int m) { return node == 1 && g == 3 && m == 0 ? 0.90 : 1.0; });
  in_rack(records, {0, 1}, "rack-a", 1);
  in_rack(records, {2, 3}, "rack-a", 2);  // another partition of the same rack
  in_rack(records, {4, 5, 6, 7}, "rack-b", 1);
  GateOptions one;
  one.max_failed = 1;
  Verdict v = gate(records, {&b}, one);
  // One node failed alone, but its rack's four nodes are lost together: beyond --max-failed 1.
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_TRUE(has_reason(v, "4 of 8 nodes failed, more than --max-failed 1 allows")) << v.summary;
  EXPECT_TRUE(has_reason(
      v, "racks judged whole: rack-a (4 nodes, 3 held by the failure of node-01); rack-b (4 nodes)"));
  int held = 0;
  for (const auto& n : v.nodes) {
    if (n.hostname == "node-01") EXPECT_EQ(n.action, NodeAction::drain);
    if (n.hostname != "node-00" && n.hostname != "node-02" && n.hostname != "node-03") continue;
    ++held;
    EXPECT_EQ(n.outcome, Outcome::fail);
    EXPECT_EQ(n.exit_code, 1);
    EXPECT_EQ(n.action, NodeAction::none);  // nothing to repair on it
    EXPECT_TRUE(n.summary.starts_with("rack rack-a is judged whole: node-01 failed")) << n.summary;
  }
  EXPECT_EQ(held, 3);

  // The same pool without racks: one failed node, within the budget.
  GateOptions flat = one;
  flat.rack_label = "";
  EXPECT_EQ(gate(records, {&b}, flat).outcome, Outcome::warn);
  // A site's own rack label names racks by its whole value.
  for (auto& r : records) {
    r.node.k8s_labels.erase(kCliqueLabel);
    r.node.k8s_labels["example.com/rack"] = r.node.hostname < "node-04" ? "r1" : "r2";
  }
  GateOptions site = one;
  site.rack_label = "example.com/rack";
  Verdict by_site = gate(records, {&b}, site);
  EXPECT_EQ(by_site.outcome, Outcome::fail) << fmt::format("{}", fmt::join(by_site.reasons, " | "));
  EXPECT_TRUE(has_reason(by_site, "r1 (4 nodes, 3 held by the failure of node-01)"));
}

TEST(Gate, ARackOnTwoDriversFailsEvenWithEveryNodePassing) {
  Jitter jitter{std::mt19937_64(22)};
  const Baseline b = class_baseline();
  auto records = healthy_pool(4, jitter);
  in_rack(records, {0, 1, 2, 3}, "rack-a", 1);
  for (auto& r : records) r.node.driver_version = "580.95.05";
  Verdict same = gate(records, {&b});
  EXPECT_EQ(same.outcome, Outcome::pass) << same.summary;
  EXPECT_TRUE(has_reason(same, "racks judged whole: rack-a (4 nodes)"));

  records[3].node.driver_version = "575.57.08";
  Verdict mixed = gate(records, {&b});
  EXPECT_EQ(mixed.outcome, Outcome::fail) << mixed.summary;
  EXPECT_TRUE(has_reason(mixed,
                         "rack rack-a runs 2 driver versions (575.57.08 on node-03; 580.95.05 on "
                         "node-00,node-01,node-02)"))
      << mixed.reasons.front();
  // Nodes on two drivers in different racks are the pool's mix only (inconclusive without --target).
  in_rack(records, {3}, "rack-b", 1);
  EXPECT_EQ(gate(records, {&b}).outcome, Outcome::inconclusive);
}

TEST(Gate, RackLabelFlagDefaultsToTheCliqueLabelAndNoneTurnsRacksOff) {
  GatePoolFlags flags;
  EXPECT_EQ(gate_options_from(flags, false).rack_label, kCliqueLabel);
  flags.rack_label = "example.com/rack";
  EXPECT_EQ(gate_options_from(flags, false).rack_label, "example.com/rack");
  flags.rack_label = "none";
  EXPECT_EQ(gate_options_from(flags, false).rack_label, "");
}
