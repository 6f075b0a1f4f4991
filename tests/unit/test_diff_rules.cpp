// diff is never weaker than compare, and records that belong together (docs/diff.md): the
// after-record judged alone against its baseline, drops far beyond the tolerance, metrics
// without samples or with samples far noisier than the class, incomplete runs, GPUs lost in
// both records, and the pair itself (the same run twice, swapped or overlapping runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/base/input_error.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/diff_pair.hpp"
#include "core/record/record_io.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

bool has_reason(const Verdict& v, const std::string& text) {
  return std::any_of(v.reasons.begin(), v.reasons.end(),
                     [&](const std::string& r) { return r.find(text) != std::string::npos; });
}

const MetricRow* row(const Verdict& v, const std::string& metric, int gpu) {
  for (const auto& m : v.metrics) {
    if (m.metric == metric && m.gpu == gpu) return &m;
  }
  return nullptr;
}

// One GPU, one pcie metric with the given samples on each side.
std::pair<RunRecord, RunRecord> pcie_pair(const std::vector<double>& b, const std::vector<double>& a) {
  RunRecord before = make_record(1), after = make_record(1);
  before.checks = {check("pcie", Status::pass)};
  after.checks = before.checks;
  before.checks[0].metrics.push_back(make_metric("pcie.h2d.gbps", "GB/s", b, 0));
  after.checks[0].metrics.push_back(make_metric("pcie.h2d.gbps", "GB/s", a, 0));
  return {before, after};
}

Baseline pcie_baseline(std::optional<double> noise_cv) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  b.origin = "pcie.yaml";
  MetricExpectation e = expectation("pcie.h2d.gbps", "GB/s", 0.02);
  e.expected = 50;
  e.noise_cv = noise_cv;
  b.metrics.push_back(e);
  return b;
}

}  // namespace

// Rule 7: a drop far beyond the allowed one fails although few samples keep the interval open.
TEST(DiffRules, FourOfFiveSamplesAtHalfSpeedFail) {
  auto [before, after] = pcie_pair({50.1, 49.9, 50.0, 50.2, 49.8}, {50.0, 25.1, 24.9, 25.0, 25.2});
  const Verdict v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_NE(v.metrics[0].reason.find("far beyond the allowed 2.00 %"), std::string::npos)
      << v.metrics[0].reason;
  // The same samples 3 % down, near the tolerance: moved, not confirmed (a warning).
  auto [b2, a2] = pcie_pair({50.1, 49.9, 50.0, 50.2, 49.8}, {50.0, 48.6, 48.4, 48.5, 48.7});
  EXPECT_EQ(diff_records(b2, a2, DiffOptions{}).outcome, Outcome::warn);
}

TEST(DiffRules, AHalvedMedianFailsWithThreeSamples) {
  // Interleaved runs: one after-sample at full speed keeps the full-range interval at zero.
  auto [before, after] = pcie_pair({50.0, 49.0, 51.0}, {50.5, 25.0, 25.5});
  const Verdict v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail) << v.metrics[0].reason;
}

TEST(DiffRules, NoisyRunsThatDidNotMoveRarelyFailAsFar) {
  // 3 and 5 samples a side at 5 % CV, nothing changed: the noise term keeps "far" for real drops
  // (at most 1 in 100 pairs; the interval's own rule is not counted here).
  std::mt19937_64 rng(77);
  std::normal_distribution<double> sample(100.0, 5.0);
  int far = 0;
  const int pairs = 1000;
  for (int i = 0; i < pairs; ++i) {
    const int n = i % 2 ? 3 : 5;
    std::vector<double> b, a;
    for (int k = 0; k < n; ++k) b.push_back(sample(rng));
    for (int k = 0; k < n; ++k) a.push_back(sample(rng));
    auto [before, after] = pcie_pair(b, a);
    const Verdict v = diff_records(before, after, DiffOptions{});
    far += v.metrics[0].reason.find("far beyond") != std::string::npos;
  }
  EXPECT_LE(far, pairs / 100) << far << " of " << pairs;
}

TEST(DiffRules, TheFarLimitGrowsWithTheClassNoise) {
  // A class whose runs scatter 20 % run to run: half speed in 4 of 5 samples is not "far" (2 % +
  // 4 x 20 %), so it stays a warning.
  auto [before, after] = pcie_pair({50.1, 49.9, 50.0, 50.2, 49.8}, {50.0, 25.1, 24.9, 25.0, 25.2});
  const Baseline noisy = pcie_baseline(0.2);
  DiffOptions o;
  o.tolerances = &noisy;
  const Verdict v = diff_records(before, after, o);
  EXPECT_EQ(row(v, "pcie.h2d.gbps", 0)->status, Status::warn) << row(v, "pcie.h2d.gbps", 0)->reason;
}

TEST(DiffRules, AMetricWithoutSamplesIsNotJudgedByItsMedian) {
  auto [before, after] = pcie_pair({50.1, 49.9, 50.0}, {50.1, 49.9, 50.0});
  after.checks[0].metrics[0].samples.clear();  // the median (50.0) stays
  Verdict v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_NE(v.metrics[0].reason.find("no samples after"), std::string::npos) << v.metrics[0].reason;
  before.checks[0].metrics[0].samples.clear();
  after.checks[0].metrics[0].samples = {50.1, 49.9, 50.0};
  v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_NE(v.metrics[0].reason.find("no samples before"), std::string::npos) << v.metrics[0].reason;
}

TEST(DiffRules, SamplesFarNoisierThanTheClassAreNoCleanPass) {
  // The same location, but after-samples scattering 10 % against 0.2 % before.
  std::vector<double> b, a;
  for (int i = 0; i < 20; ++i) {
    b.push_back(50.0 * (1 + 0.002 * ((i % 5) - 2)));
    a.push_back(50.0 * (1 + 0.1 * ((i % 5) - 2) / 2.0));
  }
  auto [before, after] = pcie_pair(b, a);
  const Verdict v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_NE(v.metrics[0].reason.find("not a clean pass"), std::string::npos) << v.metrics[0].reason;
  EXPECT_NE(v.metrics[0].reason.find("before-run's CV"), std::string::npos) << v.metrics[0].reason;
  // A class known to scatter that much (noise_cv 5 %): a clean pass.
  const Baseline noisy = pcie_baseline(0.05);
  DiffOptions o;
  o.tolerances = &noisy;
  o.allowed_drop = 0.02;
  EXPECT_EQ(diff_records(before, after, o).outcome, Outcome::pass);
}

// Rule 6 in diff: an incomplete run on either side is never a pass.
TEST(DiffRules, AnIncompleteRunIsNotAPass) {
  Jitter jitter{std::mt19937_64(5)};
  RunRecord before = node_record(jitter, 2), after = node_record(jitter, 2);
  ASSERT_EQ(diff_records(before, after, DiffOptions{}).outcome, Outcome::pass);
  after.complete = false;
  Verdict v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(v, "the after-record is from a run that did not complete")) << v.summary;
  after.complete = true;
  before.complete = false;
  EXPECT_EQ(diff_records(before, after, DiffOptions{}).outcome, Outcome::inconclusive);
}

// Rule 5 in diff: a GPU lost in both records is still lost (the node's label, the baseline).
TEST(DiffRules, AGpuLostInBothRecordsFails) {
  Jitter jitter{std::mt19937_64(6)};
  RunRecord before = node_record(jitter, 1), after = node_record(jitter, 1);
  before.node.k8s_labels["nvidia.com/gpu.count"] = "2";
  Verdict v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_TRUE(has_reason(v, "expected by the before-record's label nvidia.com/gpu.count")) << v.summary;
  EXPECT_NE(v.summary.find("1 GPU missing"), std::string::npos) << v.summary;
  before.node.k8s_labels.clear();
  ASSERT_EQ(diff_records(before, after, DiffOptions{}).outcome, Outcome::pass);
  Baseline b = class_baseline();
  b.gpu_count = 2;
  DiffOptions o;
  o.after_baseline = &b;
  o.tolerances = &b;
  EXPECT_EQ(diff_records(before, after, o).outcome, Outcome::fail);
}

TEST(DiffRules, TheAfterRecordIsJudgedAgainstItsBaselineToo) {
  // Slow before and after alike: no change, but the after-record is 40 % below its baseline.
  Jitter jitter{std::mt19937_64(7)};
  const auto slow = [](int, int m) { return m == 0 ? 0.6 : 1.0; };
  RunRecord before = node_record(jitter, 2, slow), after = node_record(jitter, 2, slow);
  ASSERT_EQ(diff_records(before, after, DiffOptions{}).outcome, Outcome::pass);
  const Baseline b = class_baseline();
  DiffOptions o;
  o.after_baseline = &b;
  const Verdict v = diff_records(before, after, o);
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_TRUE(has_reason(v, "the after-record against h200-sxm-141gb.yaml: gemm.bf16.tflops gpu 0"))
      << v.summary;
  EXPECT_NE(
      v.summary.find("the after-record alone FAIL (against h200-sxm-141gb.yaml: gemm.bf16.tflops gpu 0"),
      std::string::npos)
      << v.summary;
  EXPECT_EQ(v.per_gpu.at(0), Status::fail);
  // No baseline for the class at all: inconclusive, with the reason.
  DiffOptions none;
  none.after_baseline_missing = "no baseline baselines/h200-sxm-141gb.yaml";
  const Verdict n = diff_records(before, before, none);
  EXPECT_EQ(n.outcome, Outcome::inconclusive) << n.summary;
  EXPECT_TRUE(has_reason(n, "no baseline baselines/h200-sxm-141gb.yaml: the after-record cannot be judged"))
      << n.summary;
}

// The property: whatever compare fails (or leaves inconclusive, or warns about), diff of any
// before-record with that after-record does not pass. Records and befores are generated from a
// fixed seed: slow GPUs, missing and errored checks, lost samples, incomplete runs, labels that
// count more GPUs, failing findings; befores that are the same record, another healthy run, or
// as broken as the after-record.
namespace {

struct Generator {
  std::mt19937_64 rng;
  Jitter jitter{std::mt19937_64(4242)};
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  int pick(int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); }

  RunRecord record(int gpus) {
    const int slow_gpu = pick(gpus), slow_metric = pick(5);
    const double slow = chance(0.3) ? std::uniform_real_distribution<double>(0.4, 0.99)(rng) : 1.0;
    const int n = chance(0.2) ? 3 : 20;
    RunRecord r = node_record(jitter, gpus,
                              [&](int g, int m) { return g == slow_gpu && m == slow_metric ? slow : 1.0; });
    for (auto& c : r.checks) {
      for (auto& m : c.metrics) m.samples.resize(std::min<std::size_t>(m.samples.size(), n));
    }
    mutate(r);
    return r;
  }

  void mutate(RunRecord& r) {
    if (chance(0.1)) r.complete = false;
    if (chance(0.1)) r.checks.erase(r.checks.begin() + pick(static_cast<int>(r.checks.size())));
    if (chance(0.1) && !r.checks.empty()) {
      CheckResult& c = r.checks[static_cast<std::size_t>(pick(static_cast<int>(r.checks.size())))];
      c.status = chance(0.5) ? Status::error : Status::fail;
      c.reason = "timed out";
    }
    if (chance(0.1) && !r.checks.empty() && !r.checks[0].metrics.empty())
      r.checks[0].metrics[0].samples.clear();
    const std::size_t labelled = r.gpus.size() + (chance(0.1) ? 1 : 0);
    if (chance(0.8)) r.node.k8s_labels["nvidia.com/gpu.count"] = std::to_string(labelled);
    if (chance(0.1)) {
      CheckResult h = check("health", Status::pass);
      h.findings.push_back(
          Finding{"ecc.uncorrected_volatile", Severity::fail, 0, "2 uncorrected", "drain", 2.0});
      r.checks.push_back(h);
    }
    if (chance(0.1)) r.checks.push_back(check("health", Status::skip, "NVML unavailable"));
  }
};

}  // namespace

TEST(DiffRules, PropertyWhateverCompareFailsDiffDoesNotPass) {
  Generator gen{std::mt19937_64(31)};
  int by_outcome[4] = {0, 0, 0, 0};
  for (int i = 0; i < 400; ++i) {
    const int gpus = 1 + gen.pick(3);
    Baseline b = class_baseline();
    if (gen.chance(0.3)) b.gpu_count = gpus + gen.pick(2);
    const RunRecord after = gen.record(gpus);
    const int kind = gen.pick(3);
    const RunRecord before = kind == 0 ? after : kind == 1 ? node_record(gen.jitter, gpus) : gen.record(gpus);
    // compare of the after-record alone; as diff runs it, the before-record is one more source of
    // the node's GPU count, so "count unknown" there is compare's alone.
    const Verdict c = compare_record(after, &b, CompareOptions{});
    CompareOptions with_before;
    with_before.before_gpu_count = static_cast<int>(before.gpus.size());
    const Verdict cb = compare_record(after, &b, with_before);
    DiffOptions o;
    o.after_baseline = &b;
    if (gen.chance(0.5)) o.tolerances = &b;
    o.allowed_drop = gen.chance(0.5) ? 0.02 : 0.1;
    const Verdict d = diff_records(before, after, o);
    ++by_outcome[static_cast<int>(c.outcome)];
    const std::string ctx = "case " + std::to_string(i) + ": compare " + c.summary + "\ndiff " + d.summary;
    if (c.outcome == Outcome::fail) {
      EXPECT_EQ(d.outcome, Outcome::fail) << ctx;
    }
    if (cb.outcome == Outcome::inconclusive) {
      EXPECT_TRUE(d.outcome == Outcome::fail || d.outcome == Outcome::inconclusive) << ctx;
    }
    if (c.outcome == Outcome::warn || cb.outcome == Outcome::warn) {
      EXPECT_NE(d.outcome, Outcome::pass) << ctx;
    }
  }
  // The generator reaches every compare outcome but warn often enough to mean something.
  EXPECT_GE(by_outcome[static_cast<int>(Outcome::fail)], 50);
  EXPECT_GE(by_outcome[static_cast<int>(Outcome::inconclusive)], 50);
  EXPECT_GE(by_outcome[static_cast<int>(Outcome::pass)], 50);
}

// Rule 10: the pair itself.
class DiffPair : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / "gpuqual-diff-pair";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    before_ = make_record(1);
    after_ = make_record(1);
    after_.run_id = "run-test-2";
    after_.started_at = "2026-12-01T09:00:00Z";
    after_.ended_at = "2026-12-01T09:03:00Z";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const RunRecord& r) {
    const std::string p = (dir_ / name).string();
    write_record(p, r);
    return p;
  }
  // The refusal's one-line message, or "" when the pair is accepted.
  std::string refusal(const std::string& bp, const RunRecord& b, const std::string& ap, const RunRecord& a) {
    try {
      require_before_after(bp, b, ap, a);
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      return e.what();
    }
    return "";
  }
  fs::path dir_;
  RunRecord before_, after_;
};

TEST_F(DiffPair, TwoRunsInOrderAreAccepted) {
  EXPECT_EQ(refusal(write("b.json", before_), before_, write("a.json", after_), after_), "");
  // Back to back: the after-run starts the second the before-run ended.
  after_.started_at = before_.ended_at;
  EXPECT_EQ(refusal(write("b.json", before_), before_, write("a.json", after_), after_), "");
}

TEST_F(DiffPair, TheSameRunTwiceIsRefusedWithBothTimes) {
  const std::string b = write("b.json", before_);
  std::string why = refusal(b, before_, b, before_);
  EXPECT_NE(why.find("the same run as the before-record"), std::string::npos) << why;
  EXPECT_NE(why.find("started 2026-11-30T12:00:00Z and 2026-11-30T12:00:00Z"), std::string::npos) << why;
  // A copy under another name; the same run_id in a re-written record.
  fs::copy_file(b, dir_ / "copy.json");
  EXPECT_NE(refusal(b, before_, (dir_ / "copy.json").string(), before_), "");
  RunRecord rewritten = after_;
  rewritten.run_id = before_.run_id;
  why = refusal(b, before_, write("a.json", rewritten), rewritten);
  EXPECT_NE(why.find("run_id run-test-1"), std::string::npos) << why;
  EXPECT_NE(why.find("2026-12-01T09:00:00Z"), std::string::npos) << why;
}

TEST_F(DiffPair, AnAfterThatStartedBeforeTheBeforeEndedIsRefused) {
  const std::string b = write("b.json", before_), a = write("a.json", after_);
  // Swapped arguments.
  std::string why = refusal(a, after_, b, before_);
  EXPECT_NE(why.find("the after-run started 2026-11-30T12:00:00Z, before the before-run"), std::string::npos)
      << why;
  EXPECT_NE(why.find("ended 2026-12-01T09:03:00Z"), std::string::npos) << why;
  // Overlapping: the after-run started while the before-run was still running.
  after_.started_at = "2026-11-30T12:02:59Z";
  EXPECT_NE(refusal(b, before_, write("a.json", after_), after_), "");
  // A before-run with no end time ended no earlier than it started.
  before_.ended_at.clear();
  after_.started_at = "2026-11-30T11:59:00Z";
  EXPECT_NE(refusal(write("b.json", before_), before_, write("a.json", after_), after_), "");
}

// A pair whose order cannot be told from its times is refused, never judged as if it were in
// order: swapped arguments with an unreadable end time would pass a regression.
TEST_F(DiffPair, SwappedArgumentsWithAnUnreadableEndTimeAreRefused) {
  RunRecord newer = after_, older = before_;
  newer.ended_at = "soon";  // its start still orders it
  const std::string why = refusal(write("b.json", newer), newer, write("a.json", older), older);
  EXPECT_NE(why.find("the arguments are swapped"), std::string::npos) << why;
  EXPECT_NE(why.find("started 2026-12-01T09:00:00Z"), std::string::npos) << why;
}

TEST_F(DiffPair, APairWithoutReadableTimesIsRefused) {
  after_.started_at = "yesterday";
  std::string why = refusal(write("b.json", before_), before_, write("a.json", after_), after_);
  EXPECT_NE(why.find("yesterday is not an RFC 3339 time"), std::string::npos) << why;
  EXPECT_NE(why.find("cannot be put in order"), std::string::npos) << why;
  after_.started_at = "2026-12-01T09:00:00Z";
  before_.started_at = "x";
  before_.ended_at = "";
  why = refusal(write("b.json", before_), before_, write("a.json", after_), after_);
  EXPECT_NE(why.find("cannot be put in order"), std::string::npos) << why;
  // An unreadable end of a before-run in order: its start orders it.
  before_.started_at = "2026-11-30T12:00:00Z";
  before_.ended_at = "2026-13-40T99:00:00Z";
  EXPECT_EQ(refusal(write("b.json", before_), before_, write("a.json", after_), after_), "");
}
