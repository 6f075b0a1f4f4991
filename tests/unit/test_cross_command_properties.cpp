// One judgement for every command (docs/compare.md, "One judgement"): over generated records
// (tests/unit/record_generator.hpp) of whole-GPU, MIG and vGPU nodes, healthy and mutated, the
// real commands (through cli_main, as `gpuqual` runs them; records through the real writer and
// reader) keep these properties:
//   - diff(before, after) is never better than compare(after);
//   - gate of a pool is never better than compare of each node's record;
//   - a matrix row counts a record as compare judges it;
//   - report shows compare's verdict (its exit code and summary line);
//   - a healthy record that compare passes passes every command (no command finds a baseline,
//     floor or requirement the others do not: a MIG pool's gate, a MIG node's diff);
//   - a mutation that must never pass gives no exit 0 from any command.
// The baselines are the shipped floors plus measured baselines that `gpuqual baseline build`
// builds from the healthy records (a whole-GPU class, a MIG compute-instance class).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/base/exit_code.hpp"
#include "core/fleet/matrix_io.hpp"
#include "core/record/record_io.hpp"
#include "record_generator.hpp"
#include "runner/cli/cli.hpp"

namespace gpuqual {
namespace {

namespace fs = std::filesystem;
using testing::Mutant;
using testing::Mutation;
using testing::NodeSpec;

struct Ran {
  int code = -1;
  std::string out, err;
  std::string last_line() const {
    std::string s = out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    const auto nl = s.rfind('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
  }
};

// `gpuqual ARGS...` in this process, as main runs it.
Ran gpuqual(const std::vector<std::string>& args) {
  std::vector<std::string> all{"gpuqual"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  Ran r;
  r.code = cli_main(static_cast<int>(argv.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

// How bad an exit code is, for "never better than": pass, inconclusive, fail; a refused input (3)
// is bad in its own way: it is only never a pass.
int badness(int code) {
  return code == kExitPass ? 0 : code == kExitInconclusive ? 1 : code == kExitFail ? 2 : 3;
}

bool never_better(int other, int compare) {
  if (compare == kExitUsage) return other != kExitPass;
  return other == kExitUsage || badness(other) >= badness(compare);
}

class CrossCommandProperties : public ::testing::TestWithParam<NodeSpec> {
 public:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("gpuqual-cross-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "records");
    fs::copy(fs::path(GPUQUAL_SOURCE_DIR) / "baselines", baselines(), fs::copy_options::recursive);
    testing::RecordGenerator gen(20261205);
    for (const NodeSpec& spec : testing::node_specs()) {
      for (int node = 0; node < 3; ++node) {
        for (int run = 0; run < 2; ++run)
          write_record(path_of(spec, node, run), gen.healthy_record(spec, node, run));
      }
    }
    // Measured baselines from the healthy records, as an operator builds them: the whole H200's
    // (from whole and mixed MIG nodes) and the H200 1c.3g.71gb compute instance's.
    build_baseline("h200-sxm-141gb", {"whole-h200x2", "mig-mixed-h200x2"});
    build_baseline("h200-sxm-141gb-mig-1c.3g.71gb", {"mig-ci-h200x2"});
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

 protected:
  static std::string baselines() { return (root_ / "baselines").string(); }
  static std::string path_of(const NodeSpec& spec, int node, int run) {
    return (root_ / "records" /
            (spec.name + "-n" + std::to_string(node) + "-r" + std::to_string(run) + ".json"))
        .string();
  }
  static void build_baseline(const std::string& cls, const std::vector<std::string>& shapes) {
    std::vector<std::string> args{"baseline", "build"};
    for (const NodeSpec& spec : testing::node_specs()) {
      if (std::find(shapes.begin(), shapes.end(), spec.name) == shapes.end()) continue;
      for (int node = 0; node < 3; ++node) {
        for (int run = 0; run < 2; ++run) args.push_back(path_of(spec, node, run));
      }
    }
    const std::vector<std::string> flags{
        "--class",   cls,        "--baselines-dir",
        baselines(), "--output", (fs::path(baselines()) / (cls + ".yaml")).string()};
    args.insert(args.end(), flags.begin(), flags.end());
    const Ran r = gpuqual(args);
    EXPECT_EQ(r.code, kExitPass) << "baseline build " << cls << ":\n" << r.out << r.err;
  }

  Ran compare(const std::string& record) {
    return gpuqual({"compare", record, "--baselines-dir", baselines()});
  }
  Ran diff(const std::string& before, const std::string& after) {
    return gpuqual({"diff", before, after, "--baselines-dir", baselines()});
  }
  Ran gate(const std::vector<std::string>& records) {
    std::vector<std::string> args{"gate"};
    args.insert(args.end(), records.begin(), records.end());
    const std::vector<std::string> flags{"--baselines-dir", baselines(), "--jobs", "1"};
    args.insert(args.end(), flags.begin(), flags.end());
    return gpuqual(args);
  }
  Ran report(const std::string& record) {
    return gpuqual(
        {"report", record, "--baselines-dir", baselines(), "--html", (root_ / "report.html").string()});
  }
  // The matrix build of one record: its exit code, and the row counts as a compare exit code
  // (-1: no row counted the run).
  std::pair<int, int> matrix(const std::string& record) {
    const std::string out = (root_ / "matrix.json").string();
    fs::remove(out);
    const Ran r =
        gpuqual({"matrix", "build", record, "--baselines-dir", baselines(), "--output", out, "--jobs", "1"});
    if (r.code != kExitPass) return {r.code, -1};
    int passed = 0, failed = 0, inconclusive = 0;
    for (const auto& row : load_matrix(out).rows) {
      passed += row.runs_passed;
      failed += row.runs_failed;
      inconclusive += row.runs_inconclusive;
    }
    if (passed + failed + inconclusive != 1) return {r.code, -1};
    return {r.code, passed ? kExitPass : failed ? kExitFail : kExitInconclusive};
  }

  static fs::path root_;
};

fs::path CrossCommandProperties::root_;

std::string shown(const Ran& r) { return r.last_line() + (r.code == kExitUsage ? " / " + r.err : ""); }

TEST_P(CrossCommandProperties, HealthyRecordsPassEveryCommand) {
  const NodeSpec& spec = GetParam();
  std::vector<std::string> pool;
  for (int node = 0; node < 3; ++node) {
    const std::string after = path_of(spec, node, 1);
    const Ran c = compare(after);
    // A generator whose healthy records do not pass would make every property below vacuous.
    ASSERT_EQ(c.code, kExitPass) << spec.name << " node " << node << ": " << c.out;
    pool.push_back(after);
  }
  const std::string before = path_of(spec, 0, 0), after = path_of(spec, 0, 1);
  const Ran d = diff(before, after);
  EXPECT_EQ(d.code, kExitPass) << spec.name << ": diff of two healthy records: " << d.out;
  const Ran g = gate(pool);
  EXPECT_EQ(g.code, kExitPass) << spec.name << ": gate of healthy nodes: " << g.out;
  EXPECT_EQ(matrix(after), std::make_pair(int{kExitPass}, int{kExitPass}))
      << spec.name << ": matrix counts the run";
  const Ran rep = report(after);
  EXPECT_EQ(rep.code, kExitPass) << spec.name << ": " << rep.out;
}

TEST_P(CrossCommandProperties, MutantsAreJudgedAlikeAndNeverPass) {
  const NodeSpec& spec = GetParam();
  testing::RecordGenerator gen(7 + static_cast<std::uint32_t>(spec.name.size()));
  const std::string before = path_of(spec, 0, 0);
  const std::vector<Mutant> mutants = gen.mutants(read_record(path_of(spec, 0, 1)));
  ASSERT_GE(mutants.size(), 10u);
  int asserted = 0;
  for (std::size_t i = 0; i < mutants.size(); ++i) {
    const Mutant& m = mutants[i];
    const std::string what = spec.name + ": " + to_string(m.mutation) + " (" + m.what + ")";
    const std::string path =
        (root_ / "records" / (spec.name + "-mutant-" + std::to_string(i) + ".json")).string();
    write_record(path, m.record);
    const Ran c = compare(path);
    const Ran d = diff(before, path);
    const Ran g = gate({path, path_of(spec, 1, 1), path_of(spec, 2, 1)});
    const auto [matrix_code, counted] = matrix(path);
    const Ran rep = report(path);
    EXPECT_PRED2(never_better, d.code, c.code)
        << what << "\n diff: " << shown(d) << "\n compare: " << shown(c);
    EXPECT_PRED2(never_better, g.code, c.code)
        << what << "\n gate: " << shown(g) << "\n compare: " << shown(c);
    if (c.code == kExitUsage) {
      EXPECT_EQ(matrix_code, kExitUsage) << what;
    } else {
      EXPECT_EQ(counted, c.code) << what << ": the matrix counts the run as compare judges it: " << shown(c);
      // compare's summary line is cut to the terminal's width; report's is whole.
      EXPECT_EQ(rep.last_line().rfind(c.last_line(), 0), 0u)
          << what << ": report shows compare's verdict\n report: " << rep.last_line()
          << "\n compare: " << c.last_line();
    }
    EXPECT_EQ(rep.code, c.code) << what << "\n report: " << shown(rep) << "\n compare: " << shown(c);
    if (const char* rule = testing::awaiting_rule(m.mutation)) {
      // Asserted once that branch is merged: say which commands still pass it, for the merge.
      for (const auto& [command, code] : std::map<std::string, int>{
               {"compare", c.code}, {"diff", d.code}, {"gate", g.code}, {"report", rep.code}}) {
        if (code == kExitPass)
          std::cout << "awaiting " << rule << ": " << what << ": " << command << " passes\n";
      }
      continue;
    }
    ++asserted;
    for (const auto& [command, code] : std::map<std::string, int>{
             {"compare", c.code}, {"diff", d.code}, {"gate", g.code}, {"report", rep.code}}) {
      EXPECT_NE(code, kExitPass) << what << ": must never pass, but " << command << " passed: " << shown(c);
    }
    EXPECT_NE(counted, kExitPass) << what << ": must never pass, but the matrix counts a passing run";
  }
  EXPECT_GT(asserted, 0);
}

INSTANTIATE_TEST_SUITE_P(Generated, CrossCommandProperties, ::testing::ValuesIn(testing::node_specs()),
                         [](const ::testing::TestParamInfo<NodeSpec>& info) {
                           std::string name = info.param.name;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace gpuqual
