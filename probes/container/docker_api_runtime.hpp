#pragma once
// The Docker Engine API over its unix socket, with libcurl (CURLOPT_UNIX_SOCKET_PATH). Also
// speaks to Podman's Docker-compatible service (`podman system service`). Containers are
// created without AutoRemove: through Podman's compatible API an auto-removed container always
// reports exit code 0, so the probe waits for the exit code and removes the container itself.
#include <string>

#include "probes/container/container_runtime.hpp"

namespace gpuqual::probes {

struct DockerApiOptions {
  std::string socket = "/var/run/docker.sock";
  // How a GPU request is written: "device-request" (HostConfig.DeviceRequests with the "gpu"
  // capability, what `docker run --gpus` sends) or "cdi" (DeviceRequests with Driver "cdi" and
  // device ids nvidia.com/gpu=all / =<index>, Docker ≥ 25 with CDI enabled).
  std::string gpu_style = "device-request";
  double request_timeout_s = 30;  // create/start/inspect/remove
};

class DockerApiRuntime : public ContainerRuntime {
 public:
  explicit DockerApiRuntime(DockerApiOptions options);
  std::string describe() const override;
  std::string version() override;
  std::optional<ImageInfo> inspect_image(const std::string& image) override;
  void pull_image(const std::string& image, double timeout_s) override;
  void create(const ContainerSpec& spec) override;
  void start(const std::string& name) override;
  WaitResult wait(const std::string& name, double timeout_s, const std::atomic<bool>* stop) override;
  ContainerOutput logs(const std::string& name, std::size_t max_bytes) override;
  bool remove(const std::string& name) override;
  std::vector<LabelledContainer> list_by_label(const std::string& key) override;
  CleanupRecipe cleanup_recipe(const std::string& name) const override;

  // The JSON body of POST /containers/create for `spec` (exposed for tests).
  std::string create_body(const ContainerSpec& spec) const;

 private:
  DockerApiOptions options_;
};

// Splits Docker's multiplexed log stream (8-byte frame headers) into text; a body that is not
// multiplexed (a TTY container) is returned as is. A cut last frame keeps what arrived.
std::string demultiplex_docker_stream(const std::string& raw);

}  // namespace gpuqual::probes
