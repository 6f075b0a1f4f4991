#pragma once
// What the container probe needs from a container runtime, whatever speaks to it: the Docker
// Engine API over a unix socket (dockerd, or Podman's Docker-compatible service) or a CLI
// (podman, nerdctl, docker) described by a template. Arguments always travel as argv elements
// or JSON, never through a shell.
//
// Errors: RuntimeUnavailable when the runtime is missing or does not answer (the check reports
// `error`); RuntimeError for an operation the runtime refused (the probe decides what it means:
// a container that cannot start is `fail`).
#include <atomic>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuqual::probes {

class RuntimeUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How many GPUs a container asks for. Docker: DeviceRequests (Count -1 = all) or CDI device
// ids; podman and nerdctl: their own flags (CDI `nvidia.com/gpu=all` for podman).
struct GpuRequest {
  enum class Kind { none, all, count } kind = Kind::none;
  int count = 0;
  bool requested() const { return kind != Kind::none; }
  std::string to_string() const;  // "none", "all", "2"
};
// Parses "none" | "all" | a positive integer; std::nullopt for anything else.
std::optional<GpuRequest> parse_gpu_request(const std::string& text);

struct BindMount {
  std::string source;  // host path
  std::string target;  // path in the container
  bool read_only = true;
};

struct ContainerSpec {
  std::string name;  // chosen by the probe (run id + probe)
  std::string image;
  std::vector<std::string> command;           // empty: the image's default command
  std::vector<std::string> env;               // "K=V"
  std::map<std::string, std::string> labels;  // gpuqual.run=<id>, gpuqual.probe=<name>
  GpuRequest gpus;
  std::vector<BindMount> mounts;
};

struct ImageInfo {
  std::string id;                         // Id, "sha256:..." (the local image's config digest)
  std::vector<std::string> repo_digests;  // RepoDigests, "repo@sha256:..." (registry manifest digests)
  std::vector<std::string> env;           // Config.Env, "K=V"
};

struct WaitResult {
  enum class Outcome { exited, timed_out, stopped } outcome = Outcome::exited;
  int exit_code = -1;
  std::string error;  // the runtime's State.Error, if any
};

struct LabelledContainer {
  std::string name;
  std::map<std::string, std::string> labels;
};

struct ContainerOutput {
  std::string text;  // stdout and stderr as the runtime returns them
  bool truncated = false;
};

// What the janitor runs, after the process that created a container died, to remove it. Both
// forms run without allocating after fork (container_janitor.cpp).
struct CleanupRecipe {
  // Docker API: one raw HTTP/1.0 request (DELETE …?force=1) written to this unix socket.
  std::string unix_socket;
  std::string http_request;
  // CLI: this argv is executed (podman rm -f NAME).
  std::vector<std::string> argv;
};

class ContainerRuntime {
 public:
  virtual ~ContainerRuntime() = default;
  // "docker-api unix:///run/docker.sock", "podman (CLI)".
  virtual std::string describe() const = 0;
  // Checks that the runtime answers; returns e.g. "Docker Engine 20.10.24" or "podman 4.3.1".
  // Throws RuntimeUnavailable.
  virtual std::string version() = 0;
  // std::nullopt when the image is not present locally (nothing is pulled).
  virtual std::optional<ImageInfo> inspect_image(const std::string& image) = 0;
  virtual void pull_image(const std::string& image, double timeout_s) = 0;
  // Creates (does not start) the container. Throws RuntimeError with the runtime's message.
  virtual void create(const ContainerSpec& spec) = 0;
  // Starts it; a missing executable or a refused GPU request throws RuntimeError here.
  virtual void start(const std::string& name) = 0;
  // Waits until the container exits, the timeout passes, or `stop` is set.
  virtual WaitResult wait(const std::string& name, double timeout_s, const std::atomic<bool>* stop) = 0;
  virtual ContainerOutput logs(const std::string& name, std::size_t max_bytes) = 0;
  // Force-removes the container (kills it if running). Returns false when it did not exist.
  virtual bool remove(const std::string& name) = 0;
  // Containers (running or not) that carry the label `key`, with all their labels.
  virtual std::vector<LabelledContainer> list_by_label(const std::string& key) = 0;
  virtual CleanupRecipe cleanup_recipe(const std::string& name) const = 0;
};

}  // namespace gpuqual::probes
