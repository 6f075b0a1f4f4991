// Where `gpuqual run` writes its record, for real: a device node (mknod), a FIFO, a symlink,
// `-`, a directory; two concurrent runs on one --output; a SIGKILLed run's task directory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "run_fixture.hpp"

namespace gpuqual::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class RunOutput : public RunFixture {
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
  // A suite whose test.value is `value`, after `sleep_s` seconds of test_sleep (pid noted).
  std::string suite(double value, double sleep_s = 0) {
    std::string checks;
    if (sleep_s > 0) {
      checks += fmt::format(
          "  - check: test_sleep\n    budget_s: 1\n    timeout_s: 120\n"
          "    params: {{seconds: {}, pid_file: \"{}\"}}\n",
          sleep_s, pid_file());
    }
    checks += fmt::format(
        "  - check: test_pass\n    budget_s: 1\n    timeout_s: 10\n    params: {{value: {}}}\n", value);
    return write_suite(fmt::format("s{}", value), checks);
  }
  std::vector<std::string> judged(const std::string& suite_path, const std::string& output) {
    return {"run",        "--suite",     suite_path, "--class", "test-class",
            "--baseline", baseline(100), "--output", output};
  }
  std::vector<std::string> task_dirs(const std::string& root) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.path().filename().string().rfind("gpuqual-run-", 0) == 0) out.push_back(e.path().string());
    }
    return out;
  }
};

TEST_F(RunOutput, ACharacterDeviceStaysADevice) {
  const std::string node = path("null");
  ASSERT_EQ(::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
  const auto r = gpuqual(judged(suite(100), node));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: PASS"));
  struct stat st {};
  ASSERT_EQ(::lstat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(fs::exists(path("null.files")));
  EXPECT_FALSE(fs::exists(path(".null.lock")));
}

TEST_F(RunOutput, AFifoGetsOneRecordAndTheRunJudgesWhatItWrote) {
  // Reading the record back by path would find nothing in the pipe: the verdict must come from
  // what this run wrote (value 50 against 100: FAIL).
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_all(fifo); });
  const auto r = gpuqual(judged(suite(50), fifo));
  reader.join();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: FAIL"));
  const auto rec = nlohmann::json::parse(got);  // exactly one JSON document
  EXPECT_EQ(rec.at("schema"), "gpuqual.run/v1");
  EXPECT_EQ(rec.at("complete"), true);
}

TEST_F(RunOutput, DashWritesTheRecordToStdoutBeforeTheSummary) {
  const auto r = gpuqual(judged(suite(100), "-"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: PASS"));
  ASSERT_EQ(r.out.rfind("{", 0), 0u) << r.out;
  const auto end = r.out.find("\n}\n");
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(r.out.substr(0, end + 2)).at("complete"), true);
  EXPECT_FALSE(fs::exists(path("-")));
}

TEST_F(RunOutput, ASymlinkKeepsPointingAtTheReplacedRecord) {
  fs::create_directories(path("runs"));
  fs::create_symlink("runs/node-1.json", path("latest.json"));
  const auto r = gpuqual(judged(suite(100), "latest.json"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::is_symlink(path("latest.json")));
  EXPECT_EQ(read_record(path("runs/node-1.json")).checks.front().name, "test_pass");
}

TEST_F(RunOutput, ADirectoryIsRefusedWithOneLine) {
  fs::create_directories(path("results"));
  const auto r = gpuqual(judged(suite(100), "results"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("results: cannot write the run record: is a directory"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(fs::is_empty(path("results")));
}

TEST_F(RunOutput, ASecondLiveRunOnTheSameOutputIsRefused) {
  const Proc first = start_gpuqual(judged(suite(100, 3), "r.json"));
  ASSERT_TRUE(wait_for_pid("check"));
  const auto second = gpuqual(judged(suite(50), "r.json"));
  EXPECT_EQ(second.exit_code, 3) << second.out << second.err;
  EXPECT_THAT(second.err,
              HasSubstr(fmt::format("another gpuqual run (pid {}) is writing this record", first.pid)));
  const auto done = wait_process(first, 60);
  EXPECT_EQ(done.exit_code, 0) << done.out << done.err;
  EXPECT_THAT(last_line(done.out), StartsWith("gpuqual: PASS"));
  EXPECT_EQ(record().checks.at(1).metrics.at(0).median, 100);  // the first run's record
  EXPECT_FALSE(fs::exists(path(".r.json.lock")));
  // Once the first has ended, the same output is free again.
  const auto third = gpuqual(judged(suite(50), "r.json"));
  EXPECT_EQ(third.exit_code, 1) << third.out << third.err;
}

TEST_F(RunOutput, ASigkilledRunsTaskDirIsRemovedByTheNextRunAndNoEmptySideDirIsLeft) {
  const std::string tmp = path("tmp");
  fs::create_directories(tmp);
  ProcOptions opts = env("TMPDIR=" + tmp);
  const Proc p = start_gpuqual(judged(suite(100, 120), "r.json"), opts);
  ASSERT_TRUE(wait_for_pid("check"));
  ASSERT_EQ(task_dirs(tmp).size(), 1u);
  ::kill(-p.pid, SIGKILL);  // the runner and its check child, as an OOM kill of the pod would
  EXPECT_EQ(wait_process(p, 30).signal, SIGKILL);
  EXPECT_FALSE(fs::exists(path("r.files"))) << "an empty side folder was left";
  ASSERT_EQ(task_dirs(tmp).size(), 1u);  // the killed run could not remove its own

  const auto next = gpuqual(judged(suite(100), "r2.json"), opts);
  EXPECT_EQ(next.exit_code, 0) << next.out << next.err;
  EXPECT_TRUE(task_dirs(tmp).empty());
}

TEST_F(RunOutput, ProbeCleanupRemovesAStaleTaskDirAndLeavesALiveOne) {
  const std::string tmp = path("tmp");
  fs::create_directories(tmp);
  ProcOptions opts = env("TMPDIR=" + tmp);
  const Proc dead = start_gpuqual(judged(suite(100, 120), "r.json"), opts);
  ASSERT_TRUE(wait_for_pid("check"));
  ::kill(-dead.pid, SIGKILL);
  wait_process(dead, 30);
  const std::vector<std::string> stale = task_dirs(tmp);
  ASSERT_EQ(stale.size(), 1u);
  std::filesystem::remove(pid_file());
  const Proc live = start_gpuqual(judged(suite(100, 5), "r3.json"), opts);  // sweeps the stale one itself
  ASSERT_TRUE(wait_for_pid("check"));
  // Plant another stale one, whose owner pid cannot exist (over pid_max).
  const std::string planted = tmp + "/gpuqual-run-planted";
  fs::create_directories(planted);
  std::ofstream(planted + "/owner") << "999999999 1 " << fs::read_symlink("/proc/self/ns/pid").string()
                                    << "\n";
  // One owned in another pid namespace (another container sharing /tmp) is not ours to judge.
  const std::string foreign = tmp + "/gpuqual-run-foreign";
  fs::create_directories(foreign);
  std::ofstream(foreign + "/owner") << "999999999 1 pid:[1]\n";
  const auto clean = gpuqual({"probe", "cleanup", "--runtime", "docker", "--socket", path("no.sock")}, opts);
  EXPECT_THAT(clean.out, HasSubstr("removed " + planted)) << clean.out << clean.err;
  EXPECT_FALSE(fs::exists(planted));
  EXPECT_FALSE(fs::exists(stale.front()));
  EXPECT_TRUE(fs::exists(foreign));
  EXPECT_EQ(task_dirs(tmp).size(), 2u) << "the live run's task directory must stay";
  EXPECT_EQ(wait_process(live, 60).exit_code, 0);
  EXPECT_EQ(task_dirs(tmp), std::vector<std::string>{foreign});
}

}  // namespace
}  // namespace gpuqual::testing
