// `gpuqual probe storage|network`, `gpuqual list` and `gpuqual run` with the two checks, through
// the real binary: exit codes, the one-line summary, a bad site file as exit 3, and the storage
// check run by the runner in its child process (record written, test file gone).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "process_helpers.hpp"
#include "storage_mounts.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;
using testing::run_cli;
using testing::shell_quote;

TEST(StorageNetworkCli, ListShowsBothChecks) {
  const std::string dir = testing::temp_dir("sn-list");
  const auto r = run_cli("list", dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("storage"));
  EXPECT_THAT(r.out, HasSubstr("network"));
  std::filesystem::remove_all(dir);
}

TEST(StorageNetworkCli, ProbeStorageExitCodes) {
  testing::TestMount m("sn-probe", "-t tmpfs -o size=16m tmpfs");
  ASSERT_TRUE(m.ok());
  const std::string dir = testing::temp_dir("sn-probe-io");
  const auto ok = run_cli(
      "probe storage --path scratch=" + shell_quote(m.dir()) + " --size-mib 2 --fsync-samples 3", dir);
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("storage.scratch.write_gbps"));
  EXPECT_EQ(ok.last_line(), "gpuqual probe storage: PASS");
  const auto missing =
      run_cli("probe storage --path " + shell_quote(m.dir() + "/nope") + " --size-mib 1", dir);
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.out, HasSubstr("storage.missing"));
  const auto none = run_cli("probe storage", dir);
  EXPECT_EQ(none.code, 2);  // nothing configured: skip (not applicable), and a probe of nothing is not a pass
  EXPECT_THAT(none.last_line(), HasSubstr("SKIP"));
  std::ofstream(dir + "/site.yaml") << "storage:\n  paths: {not: a list}\n";
  const auto bad = run_cli("probe storage --site-file " + shell_quote(dir + "/site.yaml"), dir);
  EXPECT_EQ(bad.code, 3);
  EXPECT_THAT(bad.err, HasSubstr(dir + "/site.yaml"));
  std::filesystem::remove_all(dir);
}

TEST(StorageNetworkCli, ProbeNetworkRefusedIsFail) {
  const std::string dir = testing::temp_dir("sn-net");
  // Port 1 on loopback: nothing listens there (tcpmux is never run on these machines).
  const auto r = run_cli("probe network --connect 127.0.0.1:1 --samples 1 --timeout 2", dir);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("network.refused"));
  const auto bad = run_cli("probe network --connect nocolon", dir);
  EXPECT_EQ(bad.code, 3);
  std::filesystem::remove_all(dir);
}

TEST(StorageNetworkCli, RunnerRunsStorageInItsChild) {
  testing::TestMount m("sn-run", "-t tmpfs -o size=16m tmpfs");
  ASSERT_TRUE(m.ok());
  const std::string dir = testing::temp_dir("sn-run-io");
  std::ofstream(dir + "/suite.yaml")
      << "name: t\nchecks:\n  - check: storage\n    budget_s: 5\n    timeout_s: 30\n    params:\n"
      << "      size_mib: 2\n      total_timeout_s: 20\n      paths: [{name: s, path: " << m.dir()
      << "}]\n  - check: network\n    params: {site_file: " << dir << "/absent.yaml}\n";
  const auto r = run_cli("run --suite " + shell_quote(dir + "/suite.yaml") + " --baseline none --output " +
                             shell_quote(dir + "/r.json"),
                         dir);
  const auto rec = nlohmann::json::parse(std::ifstream(dir + "/r.json"));
  ASSERT_GE(rec.at("checks").size(), 2u) << r.out << r.err;  // and the run-wide xid watch
  EXPECT_EQ(rec["checks"][0]["status"], "pass") << rec["checks"][0].dump();
  EXPECT_EQ(rec["checks"][1]["status"], "skip");
  EXPECT_EQ(rec["checks"][1]["reason_code"], "not_configured");
  EXPECT_EQ(testing::storage_leftovers(m.dir()), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuqual
