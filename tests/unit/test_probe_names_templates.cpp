// Container probe building blocks that need no runtime: names, image references, GPU requests,
// CLI templates (argv built without a shell), the Docker API create body and log demultiplexing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "probes/container/cli_template.hpp"
#include "probes/container/docker_api_runtime.hpp"
#include "probes/container/names.hpp"

using namespace gpuqual;
using namespace gpuqual::probes;

TEST(ProbeNames, ContainerNamesAreValidAndCarryTheRun) {
  const std::string n = container_name("node-07 run/1", "Trainer Image:2.4", 3);
  EXPECT_TRUE(is_valid_container_name(n)) << n;
  EXPECT_EQ(n, "gpuqual-node-07-run-1-trainer-image-2-4-3");
  EXPECT_TRUE(is_valid_container_name(container_name(std::string(300, 'x'), std::string(300, 'y'), 0)));
  EXPECT_TRUE(is_valid_container_name(container_name("", "", 0)));
  EXPECT_TRUE(is_valid_container_name(container_name(local_run_id(), "p", 1)));
  EXPECT_NE(local_run_id(), local_run_id());
}

TEST(ProbeNames, ContainerNameRule) {
  EXPECT_TRUE(is_valid_container_name("a"));
  EXPECT_TRUE(is_valid_container_name("gpuqual-x_1.2"));
  EXPECT_FALSE(is_valid_container_name(""));
  EXPECT_FALSE(is_valid_container_name("-x"));
  EXPECT_FALSE(is_valid_container_name("a/b"));
  EXPECT_FALSE(is_valid_container_name("a b"));
  EXPECT_FALSE(is_valid_container_name(std::string(129, 'a')));
}

TEST(ProbeNames, ImageReferences) {
  for (const char* ok : {"busybox", "busybox:1.36", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
                         "registry.example.com:5000/team/img@sha256:0123abcd", "gq-busybox:test"})
    EXPECT_TRUE(is_valid_image_reference(ok)) << ok;
  for (const char* bad : {"", "-busybox", "--privileged", "img name", "img;rm -rf /", "a/../b", "a//b",
                          "img:", "$(id)", "img\n"})
    EXPECT_FALSE(is_valid_image_reference(bad)) << bad;
  EXPECT_THROW(require_image_reference("--rm"), std::invalid_argument);
}

TEST(ProbeNames, TagDetection) {
  EXPECT_TRUE(image_tag_missing("busybox"));
  EXPECT_TRUE(image_tag_missing("registry:5000/busybox"));
  EXPECT_FALSE(image_tag_missing("busybox:1.36"));
  EXPECT_FALSE(image_tag_missing("registry:5000/busybox:1"));
  EXPECT_FALSE(image_tag_missing("busybox@sha256:abc"));
}

TEST(ProbeGpuRequest, Parse) {
  EXPECT_EQ(parse_gpu_request("none")->kind, GpuRequest::Kind::none);
  EXPECT_EQ(parse_gpu_request("0")->kind, GpuRequest::Kind::none);
  EXPECT_EQ(parse_gpu_request("all")->kind, GpuRequest::Kind::all);
  EXPECT_EQ(parse_gpu_request("2")->count, 2);
  EXPECT_FALSE(parse_gpu_request("-1"));
  EXPECT_FALSE(parse_gpu_request("2x"));
  EXPECT_FALSE(parse_gpu_request("ALL"));
  EXPECT_FALSE(parse_gpu_request(""));
}

namespace {

ContainerSpec sample_spec() {
  ContainerSpec s;
  s.name = "gpuqual-run-p-0";
  s.image = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04";
  s.command = {"sh", "-c", "echo {name} $HOME; rm -rf /"};  // never substituted nor shell-interpreted
  s.env = {"A=1", "B=x y"};
  s.labels = {{"gpuqual.run", "r1"}};
  s.mounts = {{"/opt/probe", "/probe", true}};
  return s;
}

}  // namespace

TEST(ProbeCliTemplate, PodmanRequestsGpusThroughCdi) {
  auto s = sample_spec();
  s.gpus = {GpuRequest::Kind::all, 0};
  const Argv all = build_create_argv(cli_preset("podman"), s);
  const Argv expected = {"podman",
                         "create",
                         "--name",
                         "gpuqual-run-p-0",
                         "--label",
                         "gpuqual.run=r1",
                         "--env",
                         "A=1",
                         "--env",
                         "B=x y",
                         "--device",
                         "nvidia.com/gpu=all",
                         "--volume",
                         "/opt/probe:/probe:ro",
                         "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
                         "sh",
                         "-c",
                         "echo {name} $HOME; rm -rf /"};
  EXPECT_EQ(all, expected);
  s.gpus = {GpuRequest::Kind::count, 2};
  const Argv two = build_create_argv(cli_preset("podman"), s);
  EXPECT_NE(std::find(two.begin(), two.end(), "nvidia.com/gpu=0"), two.end());
  EXPECT_NE(std::find(two.begin(), two.end(), "nvidia.com/gpu=1"), two.end());
  EXPECT_EQ(std::find(two.begin(), two.end(), "nvidia.com/gpu=2"), two.end());
}

TEST(ProbeCliTemplate, NerdctlAndDockerCliUseGpusFlag) {
  auto s = sample_spec();
  s.gpus = {GpuRequest::Kind::count, 3};
  const Argv a = build_create_argv(cli_preset("nerdctl"), s);
  EXPECT_EQ(a[0], "nerdctl");
  const auto it = std::find(a.begin(), a.end(), "--gpus");
  ASSERT_NE(it, a.end());
  EXPECT_EQ(*(it + 1), "3");
  s.gpus = {};
  const Argv none = build_create_argv(cli_preset("docker-cli"), s);
  EXPECT_EQ(none[0], "docker");
  EXPECT_EQ(std::find(none.begin(), none.end(), "--gpus"), none.end());
}

TEST(ProbeCliTemplate, SubstitutionKeepsGoTemplates) {
  EXPECT_EQ(substitute("{{.Names}}", {{"name", "x"}}), "{{.Names}}");
  EXPECT_EQ(substitute("label={label}", {{"label", "k=v"}}), "label=k=v");
  EXPECT_EQ(substitute("{a}{b}-{c}", {{"a", "1"}, {"b", "2"}}), "12-{c}");
  const Argv list = build_argv(cli_preset("podman"), cli_preset("podman").list, {{"label", "gpuqual.owner"}});
  EXPECT_EQ(list,
            (Argv{"podman", "ps", "--all", "--filter", "label=gpuqual.owner", "--format", "{{.Names}}"}));
}

TEST(ProbeCliTemplate, TemplateDocumentWithPresetAndOverrides) {
  const nlohmann::json doc = {{"preset", "nerdctl"}, {"base", {"nerdctl", "--namespace", "k8s.io"}}};
  const CliTemplate t = parse_cli_template(doc, "t.yaml", "$");
  EXPECT_EQ(t.base, (Argv{"nerdctl", "--namespace", "k8s.io"}));
  EXPECT_EQ(t.gpus_all, (Argv{"--gpus", "all"}));
  auto s = sample_spec();
  EXPECT_EQ(build_create_argv(t, s)[2], "k8s.io");
}

TEST(ProbeCliTemplate, CustomTemplateMustBeComplete) {
  nlohmann::json doc = {{"base", {"mycli"}}};
  try {
    parse_cli_template(doc, "t.yaml", "$");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.yaml");
    EXPECT_NE(std::string(e.what()).find("required"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_cli_template({{"preset", "lxc"}}, "t", "$"), InputError);
  EXPECT_THROW(parse_cli_template({{"preset", "podman"}, {"bogus", {"x"}}}, "t", "$"), InputError);
  EXPECT_THROW(parse_cli_template({{"preset", "podman"}, {"create", nlohmann::json::array()}}, "t", "$"),
               InputError);
  EXPECT_THROW(parse_cli_template({{"preset", "podman"}, {"gpus_count", {"--gpus", "{count}"}}}, "t", "$"),
               InputError);  // podman's preset already has gpus_each
}

TEST(ProbeDockerApi, CreateBodyWithDeviceRequests) {
  DockerApiOptions o;
  o.socket = "/tmp/x.sock";
  auto s = sample_spec();
  s.gpus = {GpuRequest::Kind::all, 0};
  const auto body = nlohmann::json::parse(DockerApiRuntime(o).create_body(s));
  EXPECT_EQ(body["Image"], s.image);
  EXPECT_EQ(body["Cmd"], s.command);
  EXPECT_EQ(body["Env"], s.env);
  EXPECT_EQ(body["Labels"]["gpuqual.run"], "r1");
  EXPECT_EQ(body["HostConfig"]["AutoRemove"], false);
  EXPECT_EQ(body["HostConfig"]["Binds"][0], "/opt/probe:/probe:ro");
  const auto& dr = body["HostConfig"]["DeviceRequests"][0];
  EXPECT_EQ(dr["Count"], -1);
  EXPECT_EQ(dr["Capabilities"], nlohmann::json::parse(R"([["gpu"]])"));
  s.gpus = {GpuRequest::Kind::count, 2};
  EXPECT_EQ(
      nlohmann::json::parse(DockerApiRuntime(o).create_body(s))["HostConfig"]["DeviceRequests"][0]["Count"],
      2);
  s.gpus = {};
  s.command.clear();
  const auto plain = nlohmann::json::parse(DockerApiRuntime(o).create_body(s));
  EXPECT_FALSE(plain["HostConfig"].contains("DeviceRequests"));
  EXPECT_FALSE(plain.contains("Cmd"));  // the image's own command
}

TEST(ProbeDockerApi, CreateBodyWithCdi) {
  DockerApiOptions o;
  o.gpu_style = "cdi";
  auto s = sample_spec();
  s.gpus = {GpuRequest::Kind::count, 2};
  const auto dr =
      nlohmann::json::parse(DockerApiRuntime(o).create_body(s))["HostConfig"]["DeviceRequests"][0];
  EXPECT_EQ(dr["Driver"], "cdi");
  EXPECT_EQ(dr["DeviceIDs"], nlohmann::json::parse(R"(["nvidia.com/gpu=0","nvidia.com/gpu=1"])"));
  o.gpu_style = "magic";
  EXPECT_THROW(DockerApiRuntime{o}, std::invalid_argument);
}

TEST(ProbeDockerApi, CleanupRecipeIsOneRawDelete) {
  DockerApiOptions o;
  o.socket = "/run/d.sock";
  const CleanupRecipe r = DockerApiRuntime(o).cleanup_recipe("gpuqual-a-b-0");
  EXPECT_EQ(r.unix_socket, "/run/d.sock");
  EXPECT_EQ(r.http_request.rfind("DELETE /containers/gpuqual-a-b-0?force=true&v=true HTTP/1.1\r\n", 0), 0u);
  EXPECT_TRUE(r.argv.empty());
  EXPECT_THROW(DockerApiRuntime(o).cleanup_recipe("../x"), std::invalid_argument);
}

TEST(ProbeDockerApi, DemultiplexesLogFrames) {
  auto frame = [](char stream, const std::string& payload) {
    std::string h(8, '\0');
    h[0] = stream;
    h[4] = static_cast<char>((payload.size() >> 24) & 0xff);
    h[5] = static_cast<char>((payload.size() >> 16) & 0xff);
    h[6] = static_cast<char>((payload.size() >> 8) & 0xff);
    h[7] = static_cast<char>(payload.size() & 0xff);
    return h + payload;
  };
  const std::string big(70000, 'z');
  const std::string raw = frame(1, "hello\n") + frame(2, "oops\n") + frame(1, big);
  EXPECT_EQ(demultiplex_docker_stream(raw), "hello\noops\n" + big);
  // A bounded read cut the last frame: keep what arrived.
  EXPECT_EQ(demultiplex_docker_stream(raw.substr(0, raw.size() - 100)),
            "hello\noops\n" + big.substr(0, big.size() - 100));
  // A cut header is dropped.
  EXPECT_EQ(demultiplex_docker_stream(frame(1, "a") + std::string("\x01\0\0", 3)), "a");
  // Not multiplexed (TTY): as is.
  EXPECT_EQ(demultiplex_docker_stream("plain text"), "plain text");
  EXPECT_EQ(demultiplex_docker_stream(""), "");
}
