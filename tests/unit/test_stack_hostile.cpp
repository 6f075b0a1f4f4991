// The `stack` reader on hostile trees, and `gpuqual probe stack`'s exit codes: a file that exists
// but cannot be read is an `error` naming its path (never a pass), and a 1 GB file, a symlink loop,
// binary garbage, a FIFO or a spec naming 10,000 devices stay bounded.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
#include "stack_trees.hpp"

using namespace gpuqual;
using gpuqual::testing::StackTree;

namespace {

class StackHostile : public StackTree {
 protected:
  void SetUp() override {
    StackTree::SetUp();
    compose({"engines/containerd2"});
  }
  // `rel` becomes a sparse file of `bytes`: no disk used, the size is what a reader sees.
  void sparse(const std::string& rel, off_t bytes) {
    const auto p = root_ / rel;
    std::filesystem::remove(p);
    const int fd = ::open(p.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, bytes), 0);
    ::close(fd);
  }
  void expect_error_naming(const StackJudgement& j, const std::string& path) {
    EXPECT_EQ(j.status, Status::error) << codes(j);
    EXPECT_NE(j.reason.find(path), std::string::npos) << j.reason;
  }
};

TEST_F(StackHostile, AOneGigabyteSpecIsNotReadAndIsAnErrorNamingIt) {
  sparse("etc/cdi/nvidia.yaml", off_t{1} << 30);
  const HostStack h = read();
  ASSERT_EQ(h.unread.size(), 1u);
  EXPECT_EQ(h.unread[0].path, "/etc/cdi/nvidia.yaml");
  EXPECT_NE(h.unread[0].problem.find("larger than"), std::string::npos) << h.unread[0].problem;
  // the spec could not be judged: the cdi mode's "no spec" fails, and the unread path is named
  const StackJudgement j = judge_stack(h, StackRuleOptions{});
  EXPECT_NE(j.reason.find("could not read /etc/cdi/nvidia.yaml"), std::string::npos) << j.reason;
}

TEST_F(StackHostile, AOneGigabyteDpkgStatusIsNotHandedToDpkgQuery) {
  sparse("var/lib/dpkg/status", off_t{1} << 30);
  const HostStack h = read();
  EXPECT_FALSE(h.packages_read);
  expect_error_naming(judge_stack(h, StackRuleOptions{}), "/var/lib/dpkg/status");
}

TEST_F(StackHostile, ASymlinkLoopIsAnErrorNamingThePathNotAHang) {
  std::filesystem::remove(root_ / "etc/nvidia-container-runtime/config.toml");
  std::filesystem::create_symlink("loop-b", root_ / "etc/nvidia-container-runtime/config.toml");
  std::filesystem::create_symlink("config.toml", root_ / "etc/nvidia-container-runtime/loop-b");
  expect_error_naming(judge(), "/etc/nvidia-container-runtime/config.toml");
}

TEST_F(StackHostile, ADirectoryLinkLoopUnderLibModulesEnds) {
  std::filesystem::create_directory_symlink("..", root_ / "lib/modules/6.8.0-49-generic/updates/dkms/up");
  std::filesystem::create_directory_symlink("/lib/modules", root_ / "lib/modules/6.8.0-49-generic/extra");
  const HostStack h = read();
  EXPECT_TRUE(h.kernel_has_module.at("6.8.0-49-generic"));
}

TEST_F(StackHostile, AnAbsoluteLinkStaysInsideTheRoot) {
  // /etc/hostname exists on the machine running the test, not in the tree: never read from there
  std::filesystem::remove(root_ / "etc/nvidia-container-runtime/config.toml");
  std::filesystem::create_symlink("/etc/hostname", root_ / "etc/nvidia-container-runtime/config.toml");
  const HostStack h = read();
  EXPECT_FALSE(h.runtime_mode.has_value());
  EXPECT_TRUE(h.unread.empty());
}

TEST_F(StackHostile, AFileThatIsADirectoryIsAnErrorNamingIt) {
  std::filesystem::remove(root_ / "etc/containerd/conf.d/99-nvidia.toml");
  std::filesystem::create_directories(root_ / "etc/containerd/conf.d/99-nvidia.toml");
  expect_error_naming(judge_stack(read(), StackRuleOptions{}), "/etc/containerd/conf.d/99-nvidia.toml");
}

TEST_F(StackHostile, AFifoIsNotOpenedForReadingForever) {
  std::filesystem::remove(root_ / "etc/cdi/nvidia.yaml");
  ASSERT_EQ(::mkfifo((root_ / "etc/cdi/nvidia.yaml").c_str(), 0644), 0);
  const HostStack h = read();
  ASSERT_EQ(h.unread.size(), 1u);
  EXPECT_EQ(h.unread[0].problem, "not a regular file");
}

TEST_F(StackHostile, BinaryGarbageFailsToParseWithoutCrashing) {
  std::mt19937 rng(29);
  std::string garbage(64 << 10, '\0');
  for (auto& c : garbage) c = static_cast<char>(rng());
  write("etc/cdi/nvidia.yaml", garbage);
  write("etc/containerd/conf.d/99-nvidia.toml", garbage);
  const StackJudgement j = judge();
  EXPECT_EQ(j.status, Status::fail) << codes(j);
  EXPECT_TRUE(has(j, "stack.cdi_spec_unparseable")) << codes(j);
  EXPECT_TRUE(has(j, "stack.runtime_config_unparseable")) << codes(j);
}

TEST_F(StackHostile, ASpecNamingTenThousandDevicesIsReadWhole) {
  std::string spec = "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n";
  for (int i = 0; i < 10000; ++i) {
    spec += "- name: \"" + std::to_string(i) +
            "\"\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia" + std::to_string(i) + "\n";
  }
  write("etc/cdi/nvidia.yaml", spec);
  const HostStack h = read();
  ASSERT_EQ(h.cdi_specs.size(), 1u);
  EXPECT_EQ(h.cdi_specs[0].parse_error, "");
  EXPECT_EQ(h.cdi_specs[0].devices.size(), 10000u);
  EXPECT_EQ(judge_stack(h, StackRuleOptions{}).status, Status::pass);
}

TEST_F(StackHostile, ARootThatIsNotADirectoryIsBadInput) {
  EXPECT_THROW(read_host_stack((root_ / "missing").string()), InputError);
}

// --- gpuqual probe stack ------------------------------------------------------------------------

TEST_F(StackHostile, ProbeStackExitsZeroOnACoherentTree) {
  const auto r =
      gpuqual::testing::run_cli("probe stack --root " + gpuqual::testing::shell_quote(root()), root_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.last_line().find("gpuqual probe stack: PASS"), std::string::npos) << r.out;
}

TEST_F(StackHostile, ProbeStackExitsOneOnABrokenTreeAndSaysWhatToDo) {
  std::filesystem::copy(
      gpuqual::testing::stack_data("overlays/cdi-stale"), root_,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  const auto r =
      gpuqual::testing::run_cli("probe stack --root " + gpuqual::testing::shell_quote(root()), root_);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("stack.cdi_spec_stale"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("do: regenerate it: `nvidia-ctk cdi generate"), std::string::npos) << r.out;
}

TEST_F(StackHostile, ProbeStackExitsTwoNamingAPathItCouldNotRead) {
  std::filesystem::remove(root_ / "etc/containerd/config.toml");
  std::filesystem::create_symlink("config.toml", root_ / "etc/containerd/config.toml");
  const auto r = gpuqual::testing::run_cli(
      "probe stack --format json --root " + gpuqual::testing::shell_quote(root()), root_);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("\"status\": \"error\""), std::string::npos) << r.out;
  EXPECT_NE(r.last_line().find("could not read /etc/containerd/config.toml"), std::string::npos) << r.out;
}

TEST_F(StackHostile, ProbeStackExitsThreeOnBadInput) {
  const auto missing = gpuqual::testing::run_cli(
      "probe stack --root " + gpuqual::testing::shell_quote((root_ / "missing").string()), root_);
  EXPECT_EQ(missing.code, 3) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("missing"), std::string::npos) << missing.err;
  EXPECT_EQ(gpuqual::testing::run_cli("probe stack --format yaml", root_).code, 3);
}

}  // namespace
