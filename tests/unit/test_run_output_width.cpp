// What a person reads from a GPU-less `gpuqual run --suite canary` (docs/output-formats.md, "Width" and
// "Shared causes"): the root cause said once on each stream, not once a check; no stdout line wider than
// COLUMNS; the last lines say what to do next and where the record is, then the summary line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/text_width.hpp"
#include "run_fixture.hpp"
#include "runner/run/next_steps.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

class RunOutputWidth : public RunFixture {
 protected:
  ProcResult canary(const std::string& columns, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{
        "run", "--suite", "canary", "--output", "r.json", "--suites-dir", GPUQUAL_SOURCE_DIR "/suites"};
    args.insert(args.end(), extra.begin(), extra.end());
    return gpuqual(args, env("COLUMNS=" + columns), GPUQUAL_BINARY);
  }
};

TEST_F(RunOutputWidth, AGpuLessCanarySaysTheCauseOnceAndFitsOneHundredColumns) {
  const auto r = canary("100");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const RunRecord rec = record();
  if (!rec.gpus.empty()) GTEST_SKIP() << "this machine has GPUs; the GPU-less output does not apply";
  const std::vector<std::string> out = lines_of(r.out);
  ASSERT_GE(out.size(), 3u);
  for (const auto& l : out) EXPECT_LE(display_width(l), 100u) << l;
  const std::string all = blanks_as_one(r.out + "\n" + r.err);
  // Each reason that several checks share (the CUDA runtime's, NVML's) was printed once per check
  // and again in the summary: now at most once per stream and once more in a progress line.
  std::map<std::string, int> shared;
  for (const auto& c : rec.checks) ++shared[c.reason];
  for (const auto& [reason, checks] : shared) {
    if (checks < 2 || reason.size() < 30) continue;
    EXPECT_LE(count(all, blanks_as_one(reason)), 3u) << reason << "\n" << r.out << r.err;
  }
  // The driver's root cause in the words this machine gives it (a driver-less Debian 12 VM).
  for (const char* cause :
       {"libnvidia-ml.so.1: cannot open shared object file", "cudaErrorInsufficientDriver",
        "CUDA driver version is insufficient for CUDA runtime version"}) {
    EXPECT_LE(count(all, cause), 3u) << cause << "\n" << r.out << r.err;
  }
  // What next, where the record is, and the summary last.
  EXPECT_THAT(r.out, HasSubstr("\nnext: no GPU was usable on this node"));
  EXPECT_THAT(blanks_as_one(r.out), HasSubstr("gpuqual run --suite canary --only storage,network"));
  EXPECT_THAT(out[out.size() - 2], StartsWith("record: r.json (judge it again: gpuqual compare r.json)"));
  EXPECT_THAT(out.back(), StartsWith("gpuqual: INCONCLUSIVE"));
  // Every reason stays whole in the record and in --format json. The reasons are this second
  // run's own (its record replaced the first): some carry a timing ("after 1 ms") that differs
  // from run to run.
  const auto json = canary("100", {"--format", "json"});
  std::map<std::string, int> reasons;
  for (const auto& c : record().checks) ++reasons[c.reason];
  for (const auto& [reason, checks] : reasons) {
    const std::string quoted = nlohmann::json(reason).dump();
    EXPECT_THAT(json.out, HasSubstr(quoted.substr(1, quoted.size() - 2))) << reason;
  }
}

TEST_F(RunOutputWidth, NarrowerColumnsAreHonouredAndTheSummaryKeepsItsCounts) {
  const auto r = canary("60");
  if (!record().gpus.empty()) GTEST_SKIP() << "this machine has GPUs";
  const std::vector<std::string> out = lines_of(r.out);
  ASSERT_GE(out.size(), 2u);
  for (std::size_t i = 0; i + 1 < out.size(); ++i) EXPECT_LE(display_width(out[i]), 60u) << out[i];
  EXPECT_THAT(out.back(),
              ::testing::MatchesRegex("gpuqual: INCONCLUSIVE .*[0-9]+ of [0-9]+ check results not passed.*"));
}

TEST_F(RunOutputWidth, BaselineNoneAlsoSaysWhatNext) {
  const auto r = canary("100", {"--baseline", "none"});
  if (!record().gpus.empty()) GTEST_SKIP() << "this machine has GPUs";
  const std::vector<std::string> out = lines_of(r.out);
  ASSERT_GE(out.size(), 3u) << r.out;
  EXPECT_THAT(out.front(), StartsWith("next: no GPU was usable"));
  EXPECT_THAT(out.back(), StartsWith("gpuqual: INCONCLUSIVE"));
}

RunRecord record_with(const std::optional<int>& metric_gpu, Status per_gpu_status) {
  RunRecord r;
  CheckResult c;
  c.name = "gemm";
  if (metric_gpu || per_gpu_status != Status::error) {
    Metric m;
    m.name = "gemm.bf16.tflops";
    m.gpu = metric_gpu;
    c.metrics.push_back(m);
    c.per_gpu.push_back({0, per_gpu_status, "", ""});
  }
  r.checks.push_back(c);
  return r;
}

TEST(NextSteps, OnlyWhenNoGpuCouldBeUsed) {
  const std::string why = "CUDA runtime: cudaErrorNoDevice";
  EXPECT_TRUE(nothing_ran_on_a_gpu(record_with(std::nullopt, Status::error), why));
  EXPECT_FALSE(nothing_ran_on_a_gpu(record_with(std::nullopt, Status::error), ""));  // CUDA saw its GPUs
  EXPECT_FALSE(nothing_ran_on_a_gpu(record_with(0, Status::error), why));            // a GPU measured
  EXPECT_FALSE(nothing_ran_on_a_gpu(record_with(std::nullopt, Status::fail), why));  // a GPU was judged
}

TEST(NextSteps, NamesASuiteThatNeedsNoGpuElseTheChecksThatNeedNone) {
  Suite suite;
  suite.name = "canary";
  for (const char* c : {"gemm", "storage", "network"}) {
    SuiteCheck sc;
    sc.check = c;
    suite.checks.push_back(sc);
  }
  const RunRecord gpu_less = record_with(std::nullopt, Status::error);
  auto lines = next_steps(gpu_less, "no driver", NextStepsContext{suite, "canary", {}, "r.json", true});
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[2], HasSubstr("gpuqual run --suite canary --only storage,network"));
  EXPECT_EQ(lines[3], "record: r.json (judge it again: gpuqual compare r.json)");
  lines = next_steps(gpu_less, "no driver", NextStepsContext{suite, "./mine.yaml", {"site"}, "-", false});
  EXPECT_THAT(lines[1], HasSubstr("gpuqual run --suite ./mine.yaml"));
  EXPECT_THAT(lines[2], HasSubstr("gpuqual run --suite site (its checks need none)"));
  EXPECT_EQ(lines[3], "record: -");  // a stream cannot be read again
  EXPECT_EQ(next_steps(gpu_less, "", NextStepsContext{suite, "canary", {}, "r.json", true}).size(), 1u);
}

TEST(NextSteps, ASuiteOfSiteChecksNeedsNoGpu) {
  const std::string dir = temp_dir("suites");
  std::ofstream(dir + "/site.yaml") << "name: site\nchecks:\n  - check: storage\n  - check: network\n";
  std::ofstream(dir + "/gpu.yaml") << "name: gpu\nchecks:\n  - check: storage\n  - check: gemm\n";
  std::ofstream(dir + "/broken.yaml") << "name: [\n";
  EXPECT_EQ(suites_without_gpu(dir), std::vector<std::string>{"site"});
  EXPECT_TRUE(suites_without_gpu(GPUQUAL_SOURCE_DIR "/suites").empty());  // every shipped suite needs one
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuqual::testing
