// A node's identity and time as the commands read them from records (docs/inventory.md, "Kernel";
// docs/gate.md, "A node's runs over time", "Directories"):
//   - the kernel is `uname -r` everywhere: an old record's "6.1.0-28-amd64 (x86_64)" is read as
//     the release with its arch apart, so it is current under --node-file, on target under
//     --target kernel and current for revalidate;
//   - a newer failing record without a boot id is never hidden by an older pass of the current boot;
//   - a *.json entry of a directory that is no record file is an input error, never skipped;
//   - a record with a key given twice is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
#include "core/baseline/baseline.hpp"
#include "core/record/kernel_release.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"
#include "core/verdict/record_history.hpp"
#include "runner/commands/revalidate_inputs.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

namespace fs = std::filesystem;

constexpr const char* kBoot = "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813";

// The Node as `kubectl get node node-a -o json` shows it: nodeInfo.kernelVersion is `uname -r`.
const char* kNodeJson = R"({
  "apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "node-a", "labels": {"nvidia.com/cuda.driver-version.full": "570.133.20"}},
  "status": {"nodeInfo": {"bootID": "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813", "kubeletVersion": "v1.31.4",
                          "kernelVersion": "6.1.0-28-amd64"}}
})";

// node-a's record as gpuqual wrote it before the kernel was `uname -r` alone: current in every
// other respect (boot, kubelet, driver).
RunRecord old_kernel_record(Jitter& jitter) {
  RunRecord r = flat_node_record(jitter, "node-a");
  r.node.boot_id = kBoot;
  r.node.stack = make_stack(8);
  for (auto& f : r.node.stack->gpu_firmware) f.uuid = r.gpus[static_cast<std::size_t>(f.gpu)].uuid;
  r.node.kernel = "6.1.0-28-amd64 (x86_64)";
  return r;
}

class NodeIdentityCli : public ScratchDirTest {
 protected:
  NodeIdentityCli() : ScratchDirTest("node-identity") {}
  CliRun run(const std::string& args) { return run_cli(args, scratch_, "GPUQUAL_NOW=2026-11-30T13:00:00Z"); }
  std::string write_baseline() {
    const std::string p = (scratch_ / "h200-sxm-141gb.yaml").string();
    Baseline b = counted(class_baseline());
    b.provenance.source = "hand-written";
    b.provenance.created = "2026-11-01";
    std::ofstream(p) << baseline_to_yaml(b);
    return " --baseline " + shell_quote(p);
  }
  std::string write_text(const std::string& name, const std::string& text) {
    const fs::path p = scratch_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string write(const std::string& name, const RunRecord& r) {
    const fs::path p = scratch_ / name;
    fs::create_directories(p.parent_path());
    write_record(p.string(), r);
    return p.string();
  }
  std::string node_file() { return " --node-file " + shell_quote(write_text("node.json", kNodeJson)); }
};

}  // namespace

// --- one kernel identity ------------------------------------------------------------------------

TEST(KernelRelease, SplitsTheOldReleaseAndArchFormOnly) {
  EXPECT_EQ(split_recorded_kernel("6.1.0-28-amd64 (x86_64)").release, "6.1.0-28-amd64");
  EXPECT_EQ(split_recorded_kernel("6.1.0-28-amd64 (x86_64)").arch, "x86_64");
  EXPECT_EQ(split_recorded_kernel("6.8.0-1017-nvidia-64k (aarch64)").arch, "aarch64");
  for (const char* as_is :
       {"6.1.0-28-amd64", "", "6.1.0 ()", "(x86_64)", "6.1.0 (x86 64)", "6.1.0 (x86_64"}) {
    EXPECT_EQ(split_recorded_kernel(as_is).release, as_is);
    EXPECT_EQ(split_recorded_kernel(as_is).arch, "");
  }
}

TEST(KernelRelease, TheRecordReaderReadsAnOldRecordsKernelAsTheReleaseWithItsArchApart) {
  RunRecord r = make_record(1);
  r.node.kernel = "6.1.0-28-amd64 (x86_64)";
  const RunRecord old = StreamingRecordReader().parse(to_json(r).dump(), "old.json");
  EXPECT_EQ(old.node.kernel, "6.1.0-28-amd64");
  EXPECT_EQ(old.node.arch, "x86_64");
  EXPECT_EQ(old.node.kernel_as_written, "6.1.0-28-amd64 (x86_64)");
  // A new record states both apart, and writes them back as they are.
  r.node.kernel = "6.1.0-28-amd64";
  r.node.arch = "x86_64";
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["node"]["kernel"], "6.1.0-28-amd64");
  EXPECT_EQ(j["node"]["arch"], "x86_64");
  const RunRecord now = StreamingRecordReader().parse(j.dump(), "new.json");
  EXPECT_EQ(now.node.kernel, "6.1.0-28-amd64");
  EXPECT_EQ(now.node.kernel_as_written, "");
  // A suffix and an arch that contradict each other are bad input.
  r.node.kernel = "6.1.0-28-amd64 (x86_64)";
  r.node.arch = "aarch64";
  try {
    StreamingRecordReader().parse(to_json(r).dump(), "both.json");
    ADD_FAILURE() << "a record whose arch contradicts its kernel was read";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "both.json: $.node.kernel: kernel \"6.1.0-28-amd64 (x86_64)\" says the architecture x86_64, arch "
        "says aarch64");
  }
}

TEST_F(NodeIdentityCli, AnOldRecordsKernelIsCurrentUnderNodeFileAndOnTargetWithTheNodesKernel) {
  Jitter jitter{std::mt19937_64(71)};
  const std::string base = write_baseline();
  const std::string rec = shell_quote(write("pool/node-a.json", old_kernel_record(jitter)));
  const CliRun compared = run("compare " + rec + base + node_file());
  EXPECT_EQ(compared.code, 0) << compared.out << compared.err;
  EXPECT_EQ(compared.out.find("kernel"), std::string::npos) << "no kernel staleness: " << compared.out;
  const CliRun gated = run("gate " + shell_quote((scratch_ / "pool").string()) + base + node_file());
  EXPECT_EQ(gated.code, 0) << gated.out << gated.err;
  EXPECT_NE(gated.out.find("1 record(s) of an older gpuqual state the kernel as"), std::string::npos)
      << gated.out;
  // --target's kernel is the Node's kernelVersion too.
  const std::string target =
      write_text("target.yaml", "schema: gpuqual.target/v1\ncomponents:\n  kernel: 6.1.0-28-amd64\n");
  const CliRun on = run("compare " + rec + base + " --target " + shell_quote(target));
  EXPECT_EQ(on.code, 0) << on.out << on.err;
  // A kernel the node does not run is still off target.
  write_text("other.yaml", "schema: gpuqual.target/v1\ncomponents:\n  kernel: 6.1.0-29-amd64\n");
  EXPECT_EQ(
      run("compare " + rec + base + " --target " + shell_quote((scratch_ / "other.yaml").string())).code, 1);
}

// A target copied from an old record would match no record: refused, naming the value to write.
TEST_F(NodeIdentityCli, ATargetKernelWithTheArchSuffixIsBadInputNamingTheFix) {
  Jitter jitter{std::mt19937_64(72)};
  const std::string base = write_baseline();
  const std::string rec = shell_quote(write("node-a.json", old_kernel_record(jitter)));
  const std::string target = write_text(
      "target.yaml", "schema: gpuqual.target/v1\ncomponents:\n  kernel: \"6.1.0-28-amd64 (x86_64)\"\n");
  const CliRun r = run("compare " + rec + base + " --target " + shell_quote(target));
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("$.components.kernel"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("write \"6.1.0-28-amd64\""), std::string::npos) << r.err;
}

TEST_F(NodeIdentityCli, RevalidateCountsAnOldRecordOfTheNodesKernelAsCurrent) {
  Jitter jitter{std::mt19937_64(73)};
  write_baseline();
  StandingSources s;
  s.records = {write("node-a.json", old_kernel_record(jitter))};
  s.baselines_dir = scratch_.string();
  s.max_age = "7d";
  s.nodes = std::make_shared<CurrentNodes>(parse_current_nodes(kNodeJson, "node.json"));
  ::setenv("GPUQUAL_NOW", "2026-11-30T13:00:00Z", 1);
  const Standings standings = read_standings(s);
  ::unsetenv("GPUQUAL_NOW");
  ASSERT_EQ(standings.count("node-a"), 1u);
  EXPECT_EQ(standings.at("node-a"), Due::current) << to_string(standings.at("node-a"));
}

// --- a node's newest record under --node-file -----------------------------------------------------

TEST(RunHistoryBoots, ARecordWithoutABootIdIsNeitherOlderNorNewerThanTheCurrentBoots) {
  const std::string boot = kBoot;
  const RunPoint pass{boot, 100.0, 1000, 0, Outcome::pass, 2000};
  const RunPoint fail{"", std::nullopt, 5000, 1, Outcome::fail, 6000};
  EXPECT_EQ(run_order(pass, fail, boot), RunOrder::unknown);
  EXPECT_EQ(run_order(fail, pass, boot), RunOrder::unknown);
  const RunHistory h = judge_history({pass, fail}, boot, false);
  EXPECT_EQ(h.counted, 1u);  // the worst of the runs that may be the newest: the fail
  EXPECT_FALSE(h.order_known);
  // A record of an earlier boot that names it is still before the current boot.
  const RunPoint earlier{"0b8e4f2c-9d17-4a6e-8c35-71f2a9d0e4b6", 50.0, 9000, 2, Outcome::fail, 9500};
  EXPECT_EQ(run_order(earlier, pass, boot), RunOrder::before);
  const RunHistory named = judge_history({pass, earlier}, boot, false);
  EXPECT_EQ(named.counted, 0u);
  EXPECT_TRUE(named.order_known);
  // --consecutive: passes of the current boot do not provably follow a fail without a boot id.
  const RunPoint pass2{boot, 200.0, 3000, 3, Outcome::pass, 3500};
  EXPECT_EQ(judge_history({pass, pass2, fail}, boot, false).passes_in_a_row, 0u);
  EXPECT_EQ(judge_history({pass, pass2, earlier}, boot, false).passes_in_a_row, 2u);
}

TEST_F(NodeIdentityCli, GateWithANodeFileNeverHidesANewerFailWithoutABootIdBehindAnOlderPass) {
  Jitter jitter{std::mt19937_64(74)};
  const std::string base = write_baseline();
  RunRecord pass = old_kernel_record(jitter);
  pass.node.kernel = "6.1.0-28-amd64";
  RunRecord fail = flat_node_record(jitter, "node-a", [](int g, int) { return g == 3 ? 0.5 : 1.0; });
  fail.run_id = "run-node-a-later";
  fail.started_at = "2026-12-01T12:00:00Z";
  fail.ended_at = "2026-12-01T12:03:00Z";
  fail.node.boot_id.clear();
  const std::string p = shell_quote(write("pass.json", pass));
  const std::string f = shell_quote(write("fail.json", fail));
  EXPECT_EQ(run("gate " + p + base + node_file()).code, 0);
  for (const std::string& args : {p + " " + f, f + " " + p}) {
    const CliRun r = run("gate " + args + base + node_file());
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("which of its records is the newest cannot be told"), std::string::npos) << r.out;
  }
}

// --- gate DIR -------------------------------------------------------------------------------------------

TEST_F(NodeIdentityCli, ADirectorysJsonEntryThatIsNoRecordFileIsBadInputNamingIt) {
  Jitter jitter{std::mt19937_64(75)};
  const std::string base = write_baseline();
  const fs::path pool = scratch_ / "pool";
  write("pool/node-a.json", flat_node_record(jitter, "node-a"));
  write("pool/node-b.json", flat_node_record(jitter, "node-b"));
  const std::string dir = " " + shell_quote(pool.string());
  ASSERT_EQ(run("gate" + dir + base).code, 0);
  auto expect_refused = [&](const std::string& name, const std::string& why) {
    const CliRun r = run("gate" + dir + base);
    EXPECT_EQ(r.code, 3) << name << ": " << r.out << r.err;
    EXPECT_NE(r.err.find((pool / name).string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    // matrix build, baseline build, plan and report read directories the same way.
    EXPECT_EQ(
        run("baseline build" + dir + " --output " + shell_quote((scratch_ / "built.yaml").string())).code, 3)
        << name;
  };
  fs::create_symlink("node-c.json", pool / "node-c-latest.json");  // node-c.json was removed
  expect_refused("node-c-latest.json", "a dangling symbolic link (to node-c.json)");
  fs::remove(pool / "node-c-latest.json");
  fs::create_symlink("loop.json", pool / "loop.json");
  expect_refused("loop.json", "a symbolic link loop");
  fs::remove(pool / "loop.json");
  ASSERT_EQ(::mkfifo((pool / "pipe.json").c_str(), 0644), 0);  // reading it would wait for a writer
  expect_refused("pipe.json", "a FIFO");
  fs::remove(pool / "pipe.json");
  fs::create_directories(pool / "old.json");
  expect_refused("old.json", "a directory");
  fs::remove(pool / "old.json");
  // A regular file that is not a record is read and is that node's error: not skipped either.
  write_text("pool/node-d.json", "{\"schema\": ");
  const CliRun bad = run("gate" + dir + base);
  EXPECT_NE(bad.code, 0) << bad.out;
  EXPECT_NE(bad.out.find((pool / "node-d.json").string()), std::string::npos) << bad.out;
}

// --- duplicate keys -----------------------------------------------------------------------------------

TEST_F(NodeIdentityCli, ARecordWithAKeyGivenTwiceIsRefusedByCompareAndIsAnErrorNodeInAGate) {
  Jitter jitter{std::mt19937_64(76)};
  const std::string base = write_baseline();
  std::string text = to_json(flat_node_record(jitter, "node-a")).dump(2);
  text.insert(text.find('{') + 1, "\n  \"complete\": false,");
  const std::string dup = write_text("pool/node-a.json", text);
  const CliRun compared = run("compare " + shell_quote(dup) + base);
  EXPECT_EQ(compared.code, 3) << compared.out << compared.err;
  EXPECT_NE(compared.err.find(dup + ": $.complete: duplicate key \"complete\""), std::string::npos)
      << compared.err;
  write("pool/node-b.json", flat_node_record(jitter, "node-b"));
  const CliRun gated = run("gate " + shell_quote((scratch_ / "pool").string()) + base);
  EXPECT_NE(gated.code, 0) << gated.out;
  EXPECT_NE(gated.out.find("duplicate key"), std::string::npos) << gated.out;
}
