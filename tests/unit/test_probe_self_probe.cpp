// The self-probe: judging what gpuqual's program saw inside a container, and the program itself
// run on this (GPU-less) machine.
#include <gtest/gtest.h>

#include <string>

#include "core/base/subprocess.hpp"
#include "probes/container/self_probe.hpp"

using namespace gpuqual;
using namespace gpuqual::probes;

namespace {

const GpuRequest kNone{};
const GpuRequest kAll{GpuRequest::Kind::all, 0};

std::string device(int i, const std::string& kernel = "ok") {
  return "{\"index\": " + std::to_string(i) + ", \"name\": \"NVIDIA H200\", \"uuid\": \"GPU-" +
         std::to_string(i) + "\", \"cc\": \"9.0\", \"memory_bytes\": 150000000000, \"kernel\": \"" + kernel +
         "\"}";
}

std::string doc(const std::string& libcuda, const std::string& init_error, const std::string& devices) {
  return "{\"schema\": \"gpuqual.container-probe/v1\", \"env\": {\"NVIDIA_VISIBLE_DEVICES\": \"all\", "
         "\"CUDA_VERSION\": \"12.4.1\"}, \"dev_nodes\": 2, \"cudart_version\": \"12.4\", \"libcuda\": \"" +
         libcuda + "\", \"cuda_driver_version\": \"12.8\", \"init_error\": " + init_error +
         ", \"devices\": [" + devices + "]}\n";
}

int count_code(const SelfProbeJudgement& j, const std::string& code) {
  int n = 0;
  for (const auto& f : j.findings) n += f.code == code;
  return n;
}

std::string program() {
  const std::string bin = GPUQUAL_BINARY;
  return bin.substr(0, bin.rfind('/')) + "/gpuqual-container-probe";
}

}  // namespace

TEST(ProbeSelfProbe, GpusVisibleAndKernelsRightPass) {
  const auto j =
      judge_self_probe(doc("loaded", "null", device(0) + ", " + device(1)), {GpuRequest::Kind::count, 2});
  EXPECT_EQ(j.status, Status::pass) << j.reason;
  EXPECT_EQ(j.attributes.at("visible_gpus"), "2");
  EXPECT_EQ(j.attributes.at("kernel"), "ok on 2 GPU(s)");
  EXPECT_EQ(j.attributes.at("cuda_driver"), "12.8");
  EXPECT_EQ(j.attributes.at("cudart"), "12.4");
  EXPECT_NE(j.attributes.at("gpus").find("GPU-1"), std::string::npos);
}

TEST(ProbeSelfProbe, FewerGpusThanAskedFail) {
  const auto j = judge_self_probe(doc("loaded", "null", device(0)), {GpuRequest::Kind::count, 4});
  EXPECT_EQ(j.status, Status::fail);
  EXPECT_NE(j.reason.find("only 1"), std::string::npos) << j.reason;
  EXPECT_EQ(count_code(j, "container.gpu_not_visible"), 1);
  EXPECT_EQ(judge_self_probe(doc("loaded", "null", ""), kAll).status, Status::fail);
}

TEST(ProbeSelfProbe, NoDriverLibraryOrInitFailureFailWhenAGpuWasAsked) {
  const auto missing =
      judge_self_probe(doc("libcuda.so.1: cannot open shared object file", "null", ""), kAll);
  EXPECT_EQ(missing.status, Status::fail);
  EXPECT_NE(missing.reason.find("no CUDA driver library"), std::string::npos) << missing.reason;
  const auto init = judge_self_probe(doc("loaded", "\"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH\"", ""), kAll);
  EXPECT_EQ(init.status, Status::fail);
  EXPECT_EQ(count_code(init, "container.cuda_init_failed"), 1);
  EXPECT_NE(init.reason.find("CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"), std::string::npos);
}

TEST(ProbeSelfProbe, WrongKernelResultFails) {
  const auto j = judge_self_probe(
      doc("loaded", "null",
          device(0) + ", " + device(1, "wrong result: 3 of 65536 values differ, first at 7")),
      kAll);
  EXPECT_EQ(j.status, Status::fail);
  EXPECT_EQ(count_code(j, "container.kernel_failed"), 1);
  EXPECT_NE(j.reason.find("GPU 1: wrong result"), std::string::npos) << j.reason;
}

TEST(ProbeSelfProbe, NothingAskedIsInformation) {
  const auto j = judge_self_probe(doc("libcuda.so.1: cannot open shared object file", "null", ""), kNone);
  EXPECT_EQ(j.status, Status::pass);
  EXPECT_EQ(j.attributes.at("visible_gpus"), "0");
}

TEST(ProbeSelfProbe, EntrypointNoiseBeforeTheJsonIsSkipped) {
  const auto j = judge_self_probe("== CUDA ==\nbanner {not json}\n" + doc("loaded", "null", device(0)), kAll);
  EXPECT_EQ(j.status, Status::pass) << j.reason;
}

TEST(ProbeSelfProbe, NoResultIsAnError) {
  EXPECT_EQ(judge_self_probe("", kAll).status, Status::error);
  EXPECT_EQ(judge_self_probe("exec /.gpuqual-probe: no such file or directory\n", kAll).status,
            Status::error);
  EXPECT_EQ(judge_self_probe("{\"schema\": \"something-else\"}\n", kAll).status, Status::error);
}

TEST(ProbeSelfProbe, TheRealProgramOnThisMachine) {
  const std::string p = program();
  ProcessOptions o;
  o.timeout_s = 30;
  const ProcessResult r = run_process({p}, o);
  ASSERT_EQ(r.spawn_errno, 0) << "not built: " << p;
  ASSERT_TRUE(r.ok()) << r.describe(p) << r.err;
  const auto j = judge_self_probe(r.out, kNone);
  ASSERT_EQ(j.status, Status::pass) << j.reason << "\n" << r.out;
  // With a driver the program lists the GPUs and runs its kernel; without one it says why.
  if (j.attributes.at("libcuda") == "loaded") {
    EXPECT_NE(j.attributes.at("cuda_driver"), "-");
  } else {
    EXPECT_EQ(j.attributes.at("visible_gpus"), "0");
    EXPECT_NE(j.attributes.at("libcuda").find("libcuda.so.1"), std::string::npos);
  }
}
