// The storage check on real filesystems the test mounts (tmpfs, ext4 on a loop device, a
// read-only bind mount, full ones), a missing path, permission denied as `nobody`, and a
// filesystem frozen with fsfreeze(8) (FIFREEZE: every write blocks in the kernel until it is
// thawed, exactly what a dead NFS server or a hung device does to a writer).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/base/input_error.hpp"
#include "probes/storage/storage_check.hpp"
#include "probes/storage/storage_files.hpp"
#include "storage_mounts.hpp"

namespace gpuqual::probes {
namespace {

using gpuqual::testing::storage_leftovers;
using gpuqual::testing::TestMount;
using nlohmann::json;
using ::testing::HasSubstr;

StorageConfig one_path(const std::string& dir, json extra = json::object()) {
  json p = {{"path", dir}, {"name", "t"}, {"size_mib", 4}, {"fsync_samples", 5}, {"timeout_s", 20}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return parse_storage_params(json{{"paths", json::array({p})}}, "test");
}

const Finding* finding(const CheckResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

const Metric* metric(const CheckResult& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

TEST(StorageCheck, TmpfsPassesWithMetricsAndLeavesNothing) {
  TestMount m("stor-tmpfs", "-t tmpfs -o size=16m tmpfs");
  ASSERT_TRUE(m.ok());
  const CheckResult r = run_storage(one_path(m.dir()), nullptr);
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_EQ(r.attributes.at("storage.t.fs_type"), "tmpfs");
  EXPECT_EQ(r.attributes.at("storage.t.size_bytes"), std::to_string(4 << 20));
  ASSERT_TRUE(metric(r, "storage.t.write_gbps"));
  EXPECT_GT(metric(r, "storage.t.write_gbps")->median, 0);
  ASSERT_TRUE(metric(r, "storage.t.read_gbps"));
  ASSERT_TRUE(metric(r, "storage.t.fsync_ms"));
  EXPECT_EQ(metric(r, "storage.t.fsync_ms")->n(), 5u);
  ASSERT_TRUE(metric(r, "storage.t.fsync_p99_ms"));
  EXPECT_GE(metric(r, "storage.t.fsync_p99_ms")->median, metric(r, "storage.t.fsync_ms")->median);
  EXPECT_EQ(storage_leftovers(m.dir()), 0);
}

TEST(StorageCheck, Ext4LoopMountUsesDirectIo) {
  TestMount m = TestMount::ext4("stor-ext4", 32);
  ASSERT_TRUE(m.ok());
  const CheckResult r = run_storage(one_path(m.dir()), nullptr);
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_EQ(r.attributes.at("storage.t.fs_type"), "ext4");
  EXPECT_EQ(r.attributes.at("storage.t.io_mode"), "direct");
  EXPECT_EQ(r.attributes.at("storage.t.mount_point"), m.dir());
  EXPECT_EQ(storage_leftovers(m.dir()), 0);
  // direct: false is buffered from the start, and the record says so.
  const CheckResult b = run_storage(one_path(m.dir(), {{"direct", false}}), nullptr);
  EXPECT_EQ(b.status, Status::pass) << b.reason;
  EXPECT_THAT(b.attributes.at("storage.t.io_mode"), HasSubstr("buffered"));
}

TEST(StorageCheck, ReadOnlyBindMountFails) {
  TestMount src("stor-rosrc", "-t tmpfs -o size=8m tmpfs");
  ASSERT_TRUE(src.ok());
  TestMount ro("stor-ro", "--bind -o ro " + src.dir());
  ASSERT_TRUE(ro.ok());
  // util-linux applies ro to a bind mount by remounting; make sure it took.
  gpuqual::testing::sh("mount -o remount,bind,ro " + ro.dir());
  const CheckResult r = run_storage(one_path(ro.dir()), nullptr);
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_TRUE(finding(r, "storage.read_only")) << r.reason;
  EXPECT_THAT(finding(r, "storage.read_only")->detail, HasSubstr(ro.dir()));
  EXPECT_FALSE(metric(r, "storage.t.write_gbps"));
  // The same mount, declared read-only: nothing to write, and that passes.
  EXPECT_EQ(run_storage(one_path(ro.dir(), {{"writable", false}}), nullptr).status, Status::pass);
}

TEST(StorageCheck, FullFilesystemIsNoSpace) {
  // Too little room for the test file: refused before writing a byte.
  TestMount small("stor-small", "-t tmpfs -o size=1m tmpfs");
  ASSERT_TRUE(small.ok());
  const CheckResult r = run_storage(one_path(small.dir()), nullptr);
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_TRUE(finding(r, "storage.no_space")) << r.reason;
  // Out of inodes: the kernel answers the create with ENOSPC.
  TestMount no_inodes("stor-inodes", "-t tmpfs -o size=16m,nr_inodes=1 tmpfs");
  ASSERT_TRUE(no_inodes.ok());
  const CheckResult i = run_storage(one_path(no_inodes.dir()), nullptr);
  ASSERT_TRUE(finding(i, "storage.no_space")) << i.reason;
  EXPECT_THAT(finding(i, "storage.no_space")->detail, HasSubstr("No space left on device"));
  // Free space under the configured minimum.
  TestMount roomy("stor-min", "-t tmpfs -o size=16m tmpfs");
  const CheckResult mf = run_storage(one_path(roomy.dir(), {{"min_free_gib", 1}}), nullptr);
  ASSERT_TRUE(finding(mf, "storage.no_space")) << mf.reason;
}

TEST(StorageCheck, MissingPathFails) {
  const std::string dir = gpuqual::testing::temp_dir("stor-missing");
  ::rmdir(dir.c_str());
  const CheckResult r = run_storage(one_path(dir), nullptr);
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_TRUE(finding(r, "storage.missing")) << r.reason;
  EXPECT_THAT(r.reason, HasSubstr(dir));
}

TEST(StorageCheck, PermissionDeniedAsNobody) {
  TestMount m("stor-perm", "-t tmpfs -o size=8m,mode=0755 tmpfs");
  ASSERT_TRUE(m.ok());
  // The check runs in a child that became `nobody` (65534), as a pod's non-root user would be.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(2);
    const CheckResult r = run_storage(one_path(m.dir()), nullptr);
    std::string out = std::string(to_string(r.status)) + "\n";
    for (const auto& f : r.findings) out += f.code + "\n";
    _exit(::write(fds[1], out.data(), out.size()) > 0 ? 0 : 1);
  }
  ::close(fds[1]);
  std::string got;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  EXPECT_EQ(got, "fail\nstorage.permission\n");
}

TEST(StorageCheck, FrozenFilesystemTimesOutNamingThePathAndTheFileGoes) {
  TestMount m = TestMount::ext4("stor-frozen", 32);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(gpuqual::testing::sh("fsfreeze -f " + m.dir()), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const CheckResult r = run_storage(one_path(m.dir(), {{"timeout_s", 1}}), nullptr);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gpuqual::testing::sh("fsfreeze -u " + m.dir());
  EXPECT_EQ(r.status, Status::error);
  EXPECT_THAT(r.reason, HasSubstr(m.dir()));
  EXPECT_THAT(r.reason, HasSubstr("did not finish within 1 s"));
  EXPECT_LT(took, 5.0);  // the 1 s deadline, the kill and the bounded removal; not the freeze
  // Thawed, the killed worker's file (if its create got through) is removed by the next run's
  // sweep; that run passes.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const CheckResult again = run_storage(one_path(m.dir()), nullptr);
  EXPECT_EQ(again.status, Status::pass) << again.reason;
  EXPECT_EQ(storage_leftovers(m.dir()), 0);
}

TEST(StorageCheck, AfterAbortRemovesTheFilesOfAKilledWriter) {
  TestMount m("stor-abort", "-t tmpfs -o size=8m tmpfs");
  ASSERT_TRUE(m.ok());
  // A writer that dies without removing its test file (as SIGKILL leaves it).
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::ofstream(storage_test_file(m.dir())) << "x";
    _exit(0);
  }
  ::waitpid(pid, nullptr, 0);
  ASSERT_EQ(storage_leftovers(m.dir()), 1);
  const auto removed = storage_after_abort(json{{"paths", json::array({json{{"path", m.dir()}}})}});
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_THAT(removed[0], HasSubstr("removed " + m.dir() + "/.gpuqual-storage-"));
  EXPECT_EQ(storage_leftovers(m.dir()), 0);
  // A live writer's file stays.
  std::ofstream(storage_test_file(m.dir())) << "x";
  EXPECT_TRUE(storage_after_abort(json{{"paths", json::array({json{{"path", m.dir()}}})}}).empty());
  EXPECT_EQ(storage_leftovers(m.dir()), 1);
}

TEST(StorageCheck, NothingConfiguredIsNotApplicableAndBadParamsAreInputErrors) {
  const CheckResult none =
      run_storage(parse_storage_params(json{{"site_file", "/nonexistent/site.yaml"}}, "t"), nullptr);
  EXPECT_EQ(none.status, Status::skip);
  EXPECT_EQ(none.reason_code, "not_configured");
  EXPECT_THAT(none.reason, HasSubstr("/nonexistent/site.yaml"));
  EXPECT_THROW(parse_storage_params(json{{"paths", json::array({json{{"path", "relative"}}})}}, "t"),
               InputError);
  EXPECT_THROW(
      parse_storage_params(json{{"paths", json::array({json{{"path", "/x"}, {"sizemib", 1}}})}}, "t"),
      InputError);
}

TEST(StorageCheck, SiteFileSectionIsLaidOverTheSuiteParams) {
  TestMount m("stor-site", "-t tmpfs -o size=16m tmpfs");
  ASSERT_TRUE(m.ok());
  const std::string site = gpuqual::testing::temp_dir("stor-sitefile") + "/site.yaml";
  std::ofstream(site)
      << "storage:\n  size_mib: 2\n  fsync_samples: 3\n  paths:\n    - name: scratch\n      path: " << m.dir()
      << "\nnetwork:\n  endpoints: []\n";
  const StorageConfig c = parse_storage_params(json{{"site_file", site}, {"size_mib", 1024}}, "suite");
  ASSERT_EQ(c.paths.size(), 1u);
  EXPECT_EQ(c.paths[0].size_bytes, 2u << 20);
  EXPECT_EQ(run_storage(c, nullptr).status, Status::pass);
  std::ofstream(site) << "storage:\n  paths: [{path: " << m.dir() << ", bogus: 1}]\n";
  try {
    parse_storage_params(json{{"site_file", site}}, "suite");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(site));
    EXPECT_THAT(std::string(e.what()), HasSubstr("bogus"));
  }
  std::filesystem::remove_all(std::filesystem::path(site).parent_path());
}

}  // namespace
}  // namespace gpuqual::probes

namespace gpuqual::probes {
namespace {

// The site file the Kubernetes manifests ship parses as both checks read it (no I/O here: the
// network section names in-cluster endpoints that must not be contacted from a test).
TEST(StorageCheck, ShippedSiteFileParses) {
  const json params = {{"site_file", GPUQUAL_SOURCE_DIR "/containers/k8s/site.yaml"}};
  const StorageConfig s = parse_storage_params(params, "test");
  ASSERT_EQ(s.paths.size(), 1u);
  EXPECT_EQ(s.paths[0].path, "/tmp");
  EXPECT_TRUE(s.site_file_present);
}

}  // namespace
}  // namespace gpuqual::probes
