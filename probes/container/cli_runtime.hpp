#pragma once
// A container runtime driven through its CLI (podman, nerdctl, docker) by a CliTemplate. Each
// operation is one child process with an argv vector (core/base/subprocess.hpp), never a shell.
//
// Killing a `podman run` client leaves its container running, so the probe never uses `run`:
// create, start, wait, logs and rm are separate calls, and the janitor removes the container by
// name if the probe dies in between.
#include <string>

#include "probes/container/cli_template.hpp"
#include "probes/container/container_runtime.hpp"

namespace gpuqual::probes {

struct CliRuntimeOptions {
  CliTemplate cli;
  double request_timeout_s = 120;  // create/start/inspect/remove (podman's first call is slow)
};

class CliRuntime : public ContainerRuntime {
 public:
  explicit CliRuntime(CliRuntimeOptions options);
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

 private:
  std::string program() const { return options_.cli.base.at(0); }
  CliRuntimeOptions options_;
};

}  // namespace gpuqual::probes
