// The container probe's configuration (suite parameters), its judgement of a finished
// container, the image's CUDA variables, and container ownership.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/compat/cuda_compat.hpp"
#include "probes/container/container_owner.hpp"
#include "probes/container/image_compat.hpp"
#include "probes/container/probe_config.hpp"
#include "probes/container/probe_run.hpp"
#include "suites/container_probe.hpp"

using namespace gpuqual;
using namespace gpuqual::probes;
using nlohmann::json;

namespace {

std::string input_error_of(const json& params) {
  try {
    parse_container_probe_params(params, "suite.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ProbeConfig, FullProbeList) {
  const json params = json::parse(R"JSON({
    "runtime": "podman",
    "probes": [
      {"name": "trainer", "image": "registry.example.com/train:2.4", "command": ["python", "-c", "print(1)"],
       "env": {"A": "1", "B": "two words"}, "gpus": "all", "timeout_s": 120, "expect_exit": 0,
       "expect_output": "^1$", "pull": true, "max_output_bytes": 4096},
      {"image": "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", "gpus": 2, "env": ["X=y"]}
    ]})JSON");
  const auto c = parse_container_probe_params(params, "suite.yaml");
  EXPECT_EQ(c.runtime.kind, "podman");
  EXPECT_FALSE(c.runtime.cli);  // the preset
  ASSERT_EQ(c.probes.size(), 2u);
  const auto& p = c.probes[0];
  EXPECT_EQ(p.name, "trainer");
  EXPECT_EQ(p.command, (std::vector<std::string>{"python", "-c", "print(1)"}));
  EXPECT_EQ(p.env, (std::vector<std::string>{"A=1", "B=two words"}));
  EXPECT_EQ(p.gpus.kind, GpuRequest::Kind::all);
  EXPECT_DOUBLE_EQ(p.timeout_s, 120);
  EXPECT_TRUE(p.pull);
  EXPECT_EQ(p.max_output, 4096u);
  const auto& q = c.probes[1];
  EXPECT_EQ(q.name, "cuda-12-4-1-base-ubuntu22-04");  // from the image
  EXPECT_EQ(q.gpus.count, 2);
  EXPECT_EQ(q.env, (std::vector<std::string>{"X=y"}));
  EXPECT_DOUBLE_EQ(q.timeout_s, 60);
  EXPECT_FALSE(q.pull);  // never pulled unless asked
  EXPECT_TRUE(c.sweep_orphans);
}

TEST(ProbeConfig, DockerDefaultsAndTemplates) {
  const auto c = parse_container_probe_params(json::parse(R"({"probes": [{"image": "busybox:1"}]})"), "s");
  EXPECT_EQ(c.runtime.kind, "docker");
  EXPECT_EQ(c.runtime.gpu_style, "device-request");
  const auto n = parse_container_probe_params(
      json::parse(R"({"runtime": "nerdctl", "cli_template": {"base": ["nerdctl", "-n", "k8s.io"]},
                      "probes": [{"image": "busybox:1"}]})"),
      "s");
  ASSERT_TRUE(n.runtime.cli);
  EXPECT_EQ(n.runtime.cli->base, (std::vector<std::string>{"nerdctl", "-n", "k8s.io"}));
  EXPECT_EQ(n.runtime.cli->gpus_all, (std::vector<std::string>{"--gpus", "all"}));
}

TEST(ProbeConfig, BadParametersNameTheField) {
  EXPECT_NE(input_error_of(json::parse(R"({"probes": []})")).find("$.probes"), std::string::npos);
  EXPECT_NE(input_error_of(json::parse(R"({})")).find("$.probes"), std::string::npos);
  EXPECT_NE(
      input_error_of(json::parse(R"({"runtime": "lxc", "probes": [{"image": "a"}]})")).find("$.runtime"),
      std::string::npos);
  EXPECT_NE(input_error_of(json::parse(R"({"probes": [{"image": "--privileged"}]})")).find("$.probes[0]"),
            std::string::npos);
  EXPECT_NE(
      input_error_of(json::parse(R"({"probes": [{"image": "a", "gpus": "some"}]})")).find("$.probes[0].gpus"),
      std::string::npos);
  EXPECT_NE(input_error_of(json::parse(R"({"probes": [{"image": "a", "expect_output": "(("}]})"))
                .find("not a valid regular expression"),
            std::string::npos);
  EXPECT_NE(input_error_of(json::parse(R"({"probes": [{"image": "a", "env": ["NOVALUE"]}]})")).find("K=V"),
            std::string::npos);
  EXPECT_NE(input_error_of(json::parse(R"({"probes": [{"image": "a", "timout_s": 3}]})")).find("timout_s"),
            std::string::npos);
  EXPECT_NE(
      input_error_of(json::parse(R"({"probes": [{"image": "a"}, {"image": "b/a"}]})")).find("used twice"),
      std::string::npos);
  EXPECT_NE(
      input_error_of(json::parse(R"({"runtime": "cli", "probes": [{"image": "a"}]})")).find("cli_template"),
      std::string::npos);
  EXPECT_NE(
      input_error_of(json::parse(R"({"runtime": "podman", "socket": "/x", "probes": [{"image": "a"}]})"))
          .find("$.socket"),
      std::string::npos);
  EXPECT_NE(
      input_error_of(json::parse(R"({"probes": [{"image": "a", "expect_exit": 256}]})")).find("expect_exit"),
      std::string::npos);
}

TEST(ProbeConfig, UnknownRuntimeKindThrowsWhenMade) {
  RuntimeConfig rc;
  rc.kind = "cli";
  EXPECT_THROW(make_runtime(rc), std::invalid_argument);  // cli without a template
  rc.kind = "podman";
  EXPECT_NE(make_runtime(rc)->describe().find("podman"), std::string::npos);
  rc.kind = "docker";
  rc.socket = "/tmp/nowhere.sock";
  EXPECT_EQ(make_runtime(rc)->describe(), "docker-api unix:///tmp/nowhere.sock");
}

TEST(ProbeJudge, ExitCodeAndOutput) {
  ProbeSpec spec;
  spec.name = "p";
  spec.image = "img";
  ProbeOutcome o;
  o.exit_code = 0;
  o.output = "all good\n";
  judge_exit_and_output(spec, o);
  EXPECT_EQ(o.status, Status::pass);

  o = {};
  o.exit_code = 3;
  o.output = "boom\n";
  judge_exit_and_output(spec, o);
  EXPECT_EQ(o.status, Status::fail);
  EXPECT_EQ(o.reason, "exit code 3, expected 0");
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].code, "container.exit_code");
  EXPECT_NE(o.findings[0].detail.find("boom"), std::string::npos);

  spec.expect_exit = 3;
  o = {};
  o.exit_code = 3;
  judge_exit_and_output(spec, o);
  EXPECT_EQ(o.status, Status::pass);

  spec.expect_exit = 0;
  spec.expect_output = "GPU [0-9]+: NVIDIA";
  o = {};
  o.exit_code = 0;
  o.output = "GPU 0: NVIDIA H200 (UUID: GPU-x)\n";
  judge_exit_and_output(spec, o);
  EXPECT_EQ(o.status, Status::pass);
  o = {};
  o.exit_code = 0;
  o.output = "No devices were found\n";
  o.output_truncated = true;
  judge_exit_and_output(spec, o);
  EXPECT_EQ(o.status, Status::fail);
  EXPECT_NE(o.reason.find("does not match"), std::string::npos);
  EXPECT_NE(o.reason.find("first"), std::string::npos);  // says only part was searched
  EXPECT_EQ(o.findings.at(0).code, "container.output_mismatch");
}

namespace {

CompatInputs inputs_for(const std::string& driver, const std::string& cuda) {
  CompatInputs in;
  in.table = std::make_shared<const CudaCompatTable>(
      load_cuda_compat_table(std::string(GPUQUAL_SOURCE_DIR) + "/baselines/cuda-compat.yaml"));
  in.host.driver = DottedVersion::parse(driver);
  in.host.driver_text = driver;
  in.host.cuda = DottedVersion::parse(cuda);
  RequireFacts gpu;
  gpu.driver = in.host.driver;
  gpu.cuda = in.host.cuda;
  gpu.arch = DottedVersion::parse("9.0");
  gpu.brand = "nvidia";
  in.gpus = {gpu};
  return in;
}

// nvidia/cuda:12.4.1 as `docker image inspect` shows it (its Config.Env).
const std::vector<std::string> kCuda1241 = {
    "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin", "CUDA_VERSION=12.4.1",
    "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "
    "brand=tesla,driver>=535,driver<536 brand=unknown,driver>=535,driver<536",
    "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"};

}  // namespace

TEST(ProbeImageCompat, NewEnoughDriverPasses) {
  const auto v = check_image_compat("nvidia/cuda:12.4.1", kCuda1241, inputs_for("570.133.20", "12.8"));
  EXPECT_EQ(v.status, Status::pass) << v.summary;
}

TEST(ProbeImageCompat, TooOldDriverFailsWithTheReason) {
  const auto v = check_image_compat("nvidia/cuda:12.4.1", kCuda1241, inputs_for("525.60.13", "12.0"));
  EXPECT_EQ(v.status, Status::fail) << v.summary;
  EXPECT_NE(v.summary.find("cuda>=12.4"), std::string::npos) << v.summary;
  ASSERT_FALSE(v.findings.empty());
  EXPECT_EQ(v.findings[0].severity, Severity::fail);
}

TEST(ProbeImageCompat, MalformedRequirementFails) {
  const auto v =
      check_image_compat("bad:1", {"NVIDIA_REQUIRE_CUDA=cuda>>12"}, inputs_for("570.133.20", "12.8"));
  EXPECT_EQ(v.status, Status::fail);
  EXPECT_EQ(v.findings.at(0).code, "compat.require_malformed");
}

TEST(ProbeImageCompat, NothingToEvaluate) {
  EXPECT_EQ(check_image_compat("busybox", {"PATH=/bin"}, inputs_for("570.133.20", "12.8")).status,
            Status::skip);
  CompatInputs no_table;
  no_table.problem = "cuda-compat.yaml: not found";
  const auto v = check_image_compat("nvidia/cuda:12.4.1", kCuda1241, no_table);
  EXPECT_EQ(v.status, Status::skip);
  EXPECT_NE(v.summary.find("not evaluated: cuda-compat.yaml"), std::string::npos) << v.summary;
  // No driver on the host: nothing to judge against, never a pass.
  CompatInputs no_driver = inputs_for("570.133.20", "12.8");
  no_driver.host = {};
  no_driver.gpus.clear();
  EXPECT_EQ(check_image_compat("nvidia/cuda:12.4.1", kCuda1241, no_driver).status, Status::skip);
}

TEST(ProbeOwner, LiveAndDeadOwners) {
  const std::string me = this_process_owner();
  EXPECT_EQ(owner_state(me), OwnerState::alive);
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  // Same host and boot, a pid that has exited: gone.
  std::string dead = me.substr(0, me.rfind('/', me.rfind('/') - 1)) + "/" + std::to_string(child) + "/1";
  EXPECT_EQ(owner_state(dead), OwnerState::gone) << dead;
  // Our pid with another start time (pid reused): gone.
  std::string reused = me.substr(0, me.rfind('/')) + "/999999999";
  EXPECT_EQ(owner_state(reused), OwnerState::gone);
  EXPECT_EQ(owner_state("another-host/abc/1/2"), OwnerState::foreign);
  EXPECT_EQ(owner_state("garbage"), OwnerState::foreign);
}

TEST(ProbeAfterAbort, NeverThrowsAndSaysWhatFailed) {
  // The runner's hook after a killed container_probe: with no daemon behind the socket it
  // reports the problem instead of throwing.
  const auto out = container_probe_after_abort(json::parse(
      R"({"runtime": "docker", "socket": "/tmp/gpuqual-no-such-daemon.sock", "probes": [{"image": "a"}]})"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rfind("not removed: ", 0), 0u) << out[0];
  const auto bad = container_probe_after_abort(json::parse(R"({"probes": []})"));
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("at least one probe"), std::string::npos) << bad[0];
}
