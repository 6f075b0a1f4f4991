// core/base/atomic_file: outputs are replaced atomically only when they are (or will be) regular
// files; device nodes, FIFOs and `-` are written in place; symlinks keep pointing at their
// (replaced) target; directories are refused. Real nodes: mknod (root), mkfifo, symlink.
#include "core/base/atomic_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli_helpers.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class AtomicFile : public gpuqual::testing::ScratchDirTest {
 protected:
  AtomicFile() : ScratchDirTest("atomic-file") {}
};

}  // namespace

TEST_F(AtomicFile, NewAndRegularFilesAreReplacedWithNoTempLeft) {
  const fs::path out = scratch_ / "sub" / "record.json";
  gpuqual::write_file_atomic(out.string(), "one\n");
  gpuqual::write_file_atomic(out.string(), "two\n");
  EXPECT_EQ(slurp(out), "two\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(out.parent_path()), fs::directory_iterator{}), 1);
}

TEST_F(AtomicFile, CharacterDeviceStaysADeviceNode) {
  // A copy of /dev/null (major 1, minor 3): the bug turned it into a regular file.
  const fs::path node = scratch_ / "null";
  ASSERT_EQ(::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0)
      << "mknod needs root: " << std::strerror(errno);
  gpuqual::write_file_atomic(node.string(), "a record\n");
  struct stat st {};
  ASSERT_EQ(::lstat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(major(st.st_rdev), 1u);
  EXPECT_EQ(minor(st.st_rdev), 3u);
  EXPECT_EQ(gpuqual::resolve_output(node.string()).kind, gpuqual::OutputKind::stream);
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch_), fs::directory_iterator{}), 1);  // no temp file
}

TEST_F(AtomicFile, FifoIsWrittenInPlace) {
  const fs::path fifo = scratch_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  gpuqual::write_file_atomic(fifo.string(), "through the pipe\n");
  reader.join();
  EXPECT_EQ(got, "through the pipe\n");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(AtomicFile, SymlinkKeepsPointingAtItsReplacedTarget) {
  fs::create_directories(scratch_ / "runs");
  const fs::path target = scratch_ / "runs" / "node-1.json";
  const fs::path link = scratch_ / "latest.json";
  { std::ofstream(target) << "old\n"; }
  fs::create_symlink("runs/node-1.json", link);  // relative, as `ln -s` makes them
  gpuqual::write_file_atomic(link.string(), "new\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), fs::path("runs/node-1.json"));
  EXPECT_EQ(slurp(target), "new\n");
}

TEST_F(AtomicFile, DanglingSymlinkCreatesItsTarget) {
  const fs::path link = scratch_ / "latest.json";
  fs::create_symlink(scratch_ / "made.json", link);
  gpuqual::write_file_atomic(link.string(), "made\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(scratch_ / "made.json"), "made\n");
}

TEST_F(AtomicFile, DirectoryIsRefusedAndLeftAlone) {
  const fs::path dir = scratch_ / "results";
  fs::create_directories(dir);
  try {
    gpuqual::write_file_atomic(dir.string(), "x\n");
    FAIL() << "a directory was accepted as an output";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), dir.string() + ": is a directory");
  }
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(AtomicFile, DashWritesStdout) {
  // Through the real CLI: `--junit -` puts the XML on stdout, before the table and summary.
  const std::string data = GPUQUAL_TEST_DATA;
  const auto r = gpuqual::testing::run_cli(
      "compare " + gpuqual::testing::shell_quote(data + "/records/synthetic-healthy.json") +
          " --baselines-dir " + gpuqual::testing::shell_quote(data + "/baselines") + " --junit -",
      scratch_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("<?xml", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("</testsuites>"), std::string::npos);
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(AtomicFile, DevStdoutRedirectedToAFileKeepsWhatFollows) {
  // `--junit /dev/stdout > out.txt`: the XML and then the table and summary, none overwritten.
  const std::string data = GPUQUAL_TEST_DATA;
  const fs::path out = scratch_ / "out.txt";
  const auto r = gpuqual::testing::run_cli(
      "compare " + gpuqual::testing::shell_quote(data + "/records/synthetic-healthy.json") +
          " --baselines-dir " + gpuqual::testing::shell_quote(data + "/baselines") +
          " --junit /dev/stdout > " + gpuqual::testing::shell_quote(out.string()),
      scratch_);
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(out);
  EXPECT_EQ(text.rfind("<?xml", 0), 0u) << text;
  const auto xml_end = text.find("</testsuites>");
  ASSERT_NE(xml_end, std::string::npos) << text;
  EXPECT_NE(text.find("gpuqual: PASS", xml_end), std::string::npos) << text;
  EXPECT_TRUE(fs::is_regular_file(out));
}

TEST_F(AtomicFile, NullDeviceThroughTheCliStaysADevice) {
  // `--junit /dev/null` as root, on a copy of /dev/null (the real one is not put at risk).
  const fs::path node = scratch_ / "null";
  ASSERT_EQ(::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
  const std::string data = GPUQUAL_TEST_DATA;
  const auto r = gpuqual::testing::run_cli(
      "compare " + gpuqual::testing::shell_quote(data + "/records/synthetic-healthy.json") +
          " --baselines-dir " + gpuqual::testing::shell_quote(data + "/baselines") + " --junit " +
          gpuqual::testing::shell_quote(node.string()),
      scratch_);
  EXPECT_EQ(r.code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(AtomicFile, DirectoryReportPathIsAUsageError) {
  const std::string data = GPUQUAL_TEST_DATA;
  const auto r = gpuqual::testing::run_cli(
      "compare " + gpuqual::testing::shell_quote(data + "/records/synthetic-healthy.json") +
          " --baselines-dir " + gpuqual::testing::shell_quote(data + "/baselines") + " --junit " +
          gpuqual::testing::shell_quote(scratch_.string()),
      scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
