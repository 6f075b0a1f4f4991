// Forward compatibility for gpuqual's own CUDA 13 runtime (core/compat/cuda_compat_forward.hpp): the
// eligibility rules over the shipped branch table and product names, reading /proc/driver/nvidia,
// and the re-exec in a real gpuqual process with a fake /proc tree and a fake compat directory
// (it picks the directory exactly when eligible, and re-executes once).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_helpers.hpp"
#include "core/compat/cuda_compat_forward.hpp"
#include "core/compat/cuda_compat_reexec.hpp"
#include "core/judge/diff.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

ForwardCompatHost host(std::string driver, std::vector<std::string> products = {"NVIDIA H100 80GB HBM3"}) {
  return ForwardCompatHost{std::move(driver), std::move(products)};
}

ForwardCompatDecision decide(const ForwardCompatHost& h, bool libs = true) {
  return decide_forward_compat(h, libs, "/usr/local/cuda/compat");
}

const char* kProcVersion =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:15 UTC 2024\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";

}  // namespace

TEST(ForwardCompat, EveryShippedBranchOnADataCenterGpuUsesTheCompatDriver) {
  for (int branch : kForwardCompatBranches) {
    SCOPED_TRACE(branch);
    const auto d = decide(host(std::to_string(branch) + ".100.01"));
    EXPECT_TRUE(d.use) << d.rule;
    EXPECT_NE(d.rule.find("r" + std::to_string(branch)), std::string::npos) << d.rule;
    EXPECT_NE(d.rule.find("/usr/local/cuda/compat"), std::string::npos) << d.rule;
  }
  EXPECT_EQ(kForwardCompatBranches, (std::array<int, 5>{535, 550, 565, 570, 575}));  // CUDA 13.0 images
}

TEST(ForwardCompat, NeverWhenTheHostDriverIsNewEnough) {
  for (const char* v : {"580.65.06", "580.95.05", "590.48.01", "610.57.04"}) {
    const auto d = decide(host(v));
    EXPECT_FALSE(d.use) << v;
    EXPECT_NE(d.rule.find("runs CUDA 13 itself"), std::string::npos) << d.rule;
  }
}

TEST(ForwardCompat, NeverOnABranchTheCompatPackageDoesNotSupport) {
  for (const char* v : {"470.256.02", "525.147.05", "545.23.08", "560.35.03"}) {
    const auto d = decide(host(v));
    EXPECT_FALSE(d.use) << v << ": " << d.rule;
    EXPECT_NE(d.rule.find("not a branch cuda-compat-13-0 supports"), std::string::npos) << d.rule;
  }
}

TEST(ForwardCompat, OnlyDataCenterGpusNeverGeForce) {
  for (const char* p :
       {"NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe",
        "NVIDIA L40S", "NVIDIA L4", "NVIDIA B200", "Tesla T4", "NVIDIA A10", "NVIDIA GH200 480GB"}) {
    EXPECT_TRUE(forward_compat_product_supported(p)) << p;
    EXPECT_TRUE(decide(host("570.133.20", {p})).use) << p;
  }
  for (const char* p : {"NVIDIA GeForce RTX 4090", "NVIDIA GeForce GTX 1080", "NVIDIA TITAN RTX",
                        "Quadro RTX 8000", "NVIDIA RTX A6000", "NVIDIA RTX 6000 Ada Generation",
                        "Tesla V100-SXM2-32GB", "Tesla P100-PCIE-16GB", ""}) {
    EXPECT_FALSE(forward_compat_product_supported(p)) << p;
    const auto d = decide(host("570.133.20", {p}));
    EXPECT_FALSE(d.use) << p;
  }
  // One consumer card among data-center GPUs is enough to refuse.
  EXPECT_FALSE(decide(host("535.161.08", {"NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090"})).use);
  EXPECT_FALSE(decide(host("535.161.08", {})).use);
}

TEST(ForwardCompat, NeedsTheLibrariesAndADriver) {
  const auto no_libs = decide(host("535.161.08"), false);
  EXPECT_FALSE(no_libs.use);
  EXPECT_NE(no_libs.rule.find("install cuda-compat-13-0"), std::string::npos) << no_libs.rule;
  EXPECT_FALSE(decide(host("")).use);
  EXPECT_FALSE(decide(host("garbage")).use);
}

TEST(ForwardCompat, ReadsProcDriverNvidia) {
  EXPECT_EQ(parse_nvrm_version(kProcVersion), "535.161.08");
  EXPECT_EQ(parse_nvrm_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build"),
            "570.133.20");
  EXPECT_EQ(parse_nvrm_version(""), "");
  EXPECT_EQ(parse_gpu_information_model("Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   123\n"),
            "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(parse_gpu_information_model("IRQ: 1\n"), "");

  const fs::path dir = fs::temp_directory_path() / ("gpuqual-proc-" + std::to_string(::getpid()));
  fs::create_directories(dir / "gpus" / "0000:18:00.0");
  fs::create_directories(dir / "gpus" / "0000:2a:00.0");
  std::ofstream(dir / "version") << kProcVersion;
  std::ofstream(dir / "gpus" / "0000:18:00.0" / "information") << "Model: \t NVIDIA H100 80GB HBM3\nIRQ: 1\n";
  std::ofstream(dir / "gpus" / "0000:2a:00.0" / "information") << "Model: \t NVIDIA H100 80GB HBM3\nIRQ: 2\n";
  const ForwardCompatHost h = read_forward_compat_host(dir.string());
  EXPECT_EQ(h.driver_version, "535.161.08");
  EXPECT_EQ(h.products, (std::vector<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"}));
  EXPECT_TRUE(read_forward_compat_host((dir / "nowhere").string()).driver_version.empty());
  fs::remove_all(dir);
}

TEST(ForwardCompat, LibraryPathPutsTheCompatDirFirst) {
  EXPECT_EQ(forward_compat_library_path("/c", nullptr), "/c");
  EXPECT_EQ(forward_compat_library_path("/c", ""), "/c");
  EXPECT_EQ(forward_compat_library_path("/c", "/usr/local/cuda/lib64"), "/c:/usr/local/cuda/lib64");
}

namespace {

// A fake /proc/driver/nvidia and a fake compat directory, and the real gpuqual binary run with
// them (GPUQUAL_PROC_DRIVER_DIR, GPUQUAL_FORWARD_COMPAT_DIR).
class ForwardCompatReexec : public ScratchDirTest {
 protected:
  ForwardCompatReexec() : ScratchDirTest("fwd-compat") {}
  void SetUp() override {
    ScratchDirTest::SetUp();
    proc_ = scratch_ / "proc";
    compat_ = scratch_ / "compat";
    fs::create_directories(proc_ / "gpus" / "0000:18:00.0");
    fs::create_directories(compat_);
  }
  void host(const std::string& driver, const std::string& model) {
    std::ofstream(proc_ / "version") << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " << driver
                                     << "  Release\n";
    std::ofstream(proc_ / "gpus" / "0000:18:00.0" / "information") << "Model: \t " << model << "\nIRQ: 1\n";
  }
  void compat_libs() {
    std::ofstream(compat_ / "libcuda.so.580.65.06") << "not a real library";
    fs::create_symlink("libcuda.so.580.65.06", compat_ / "libcuda.so.1");
  }
  CliRun inventory() {
    return run_cli("inventory", scratch_,
                   "-u " + std::string(kForwardCompatActiveEnv) +
                       " GPUQUAL_FORWARD_COMPAT= GPUQUAL_PROC_DRIVER_DIR=" + shell_quote(proc_.string()) +
                       " GPUQUAL_FORWARD_COMPAT_DIR=" + shell_quote(compat_.string()));
  }
  static int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
    return n;
  }
  fs::path proc_, compat_;
};

}  // namespace

TEST_F(ForwardCompatReexec, EligibleHostReexecutesOnceWithTheCompatDirFirst) {
  host("535.161.08", "NVIDIA H100 80GB HBM3");
  compat_libs();
  const CliRun r = inventory();
  EXPECT_EQ(count(r.err, "re-executing with LD_LIBRARY_PATH=" + compat_.string()), 1) << r.err;
  EXPECT_NE(r.err.find("host driver 535.161.08 (r535"), std::string::npos) << r.err;
  // The re-executed process ran the command to its end (its summary line), and did not loop.
  EXPECT_NE(r.last_line().find("gpuqual inventory"), std::string::npos) << r.out;
}

TEST_F(ForwardCompatReexec, NotWhenTheHostDriverIsNewEnough) {
  host("580.95.05", "NVIDIA H100 80GB HBM3");
  compat_libs();
  const CliRun r = inventory();
  EXPECT_EQ(count(r.err, "re-executing"), 0) << r.err;
}

TEST_F(ForwardCompatReexec, NeverOnGeForce) {
  host("535.161.08", "NVIDIA GeForce RTX 4090");
  compat_libs();
  EXPECT_EQ(count(inventory().err, "re-executing"), 0);
}

TEST_F(ForwardCompatReexec, NotWithoutTheCompatLibraries) {
  host("535.161.08", "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(count(inventory().err, "re-executing"), 0);
}

TEST_F(ForwardCompatReexec, OffMeansOff) {
  host("535.161.08", "NVIDIA H100 80GB HBM3");
  compat_libs();
  const CliRun r =
      run_cli("inventory", scratch_,
              "GPUQUAL_FORWARD_COMPAT=off GPUQUAL_PROC_DRIVER_DIR=" + shell_quote(proc_.string()) +
                  " GPUQUAL_FORWARD_COMPAT_DIR=" + shell_quote(compat_.string()));
  EXPECT_EQ(count(r.err, "re-executing"), 0) << r.err;
}

namespace {
RunRecord record_measured_by(const std::string& umd, const std::string& revision) {
  RunRecord r = make_record(1);
  r.tool.git_revision = revision;
  CheckResult compat;
  compat.name = "compat";
  compat.status = Status::pass;
  compat.attributes["user_mode_driver"] = umd;
  r.checks.push_back(compat);
  CheckResult gemm;
  gemm.name = "gemm";
  gemm.status = Status::pass;
  gemm.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", {770, 771, 772, 770, 771}));
  r.checks.push_back(gemm);
  return r;
}
bool has_reason(const Verdict& v, const std::string& part) {
  return std::any_of(v.reasons.begin(), v.reasons.end(),
                     [&](const std::string& r) { return r.find(part) != std::string::npos; });
}
}  // namespace

// A before record taken through forward compatibility and an after record on the new host
// driver: diff says the user-mode driver changed (warn), and so for a different gpuqual build.
TEST(ForwardCompatDiff, DifferentUserModeDriversOrBuildsWarn) {
  const RunRecord before = record_measured_by("forward-compat 580.65.06 (/usr/local/cuda/compat)", "abc123");
  const RunRecord same = record_measured_by("forward-compat 580.65.06 (/usr/local/cuda/compat)", "abc123");
  const Verdict quiet = diff_records(before, same, DiffOptions{});
  EXPECT_EQ(quiet.outcome, Outcome::pass) << quiet.summary;

  const Verdict umd = diff_records(before, record_measured_by("host 580.95.05", "abc123"), DiffOptions{});
  EXPECT_EQ(umd.outcome, Outcome::warn) << umd.summary;
  EXPECT_TRUE(has_reason(umd, "different user-mode drivers measured: forward-compat 580.65.06"))
      << umd.summary;

  const Verdict build =
      diff_records(before, record_measured_by("forward-compat 580.65.06 (/usr/local/cuda/compat)", "def456"),
                   DiffOptions{});
  EXPECT_EQ(build.outcome, Outcome::warn) << build.summary;
  EXPECT_TRUE(has_reason(build, "different gpuqual builds measured")) << build.summary;
}
