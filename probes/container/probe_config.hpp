#pragma once
// The container probe's configuration — which runtime, and the list of probes — as read from
// a suite's check parameters (JSON) or built from `gpuqual probe container` flags, and the run
// of all probes into one CheckResult.
//
//   runtime: docker            # docker (Engine API over a unix socket; also Podman's service)
//                              # | podman | nerdctl | docker-cli (CLI presets) | cli (template)
//   socket: /run/docker.sock   # docker only; default $DOCKER_HOST (unix://) or /var/run/docker.sock
//   gpu_style: device-request  # docker only: device-request | cdi
//   cli_template: {...}        # cli: the template; presets: overrides (cli_template.hpp)
//   sweep_orphans: true        # first remove containers of dead gpuqual processes
//   tables_dir: DIR            # where cuda-compat.yaml is (default: the baselines directory)
//   probes:
//     - name: trainer
//       image: registry.example.com/train:2.4
//       command: [python, -c, "import torch; assert torch.cuda.is_available()"]
//       env: {NCCL_DEBUG: WARN}
//       gpus: all              # none | all | N
//       timeout_s: 120
//       expect_exit: 0
//       expect_output: "ok"    # ECMAScript regex searched in the output
//       pull: false
//       self_probe: false      # run gpuqual's program inside instead of a command
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/record/record.hpp"
#include "probes/container/cli_template.hpp"
#include "probes/container/container_runtime.hpp"
#include "probes/container/probe_run.hpp"

namespace gpuqual::probes {

struct RuntimeConfig {
  std::string kind = "docker";
  std::string socket;  // "" → default_docker_socket()
  std::string gpu_style = "device-request";
  std::optional<CliTemplate> cli;  // for CLI kinds; "" → the preset of `kind`
};

struct ContainerProbeConfig {
  RuntimeConfig runtime;
  std::vector<ProbeSpec> probes;
  bool sweep_orphans = true;
  std::string tables_dir;  // where cuda-compat.yaml is; "" = the baselines directory
};

// Throws std::invalid_argument for an unknown kind or a bad template.
std::unique_ptr<ContainerRuntime> make_runtime(const RuntimeConfig& config);

// Throws InputError(origin, "$.probes[1].image", problem).
ContainerProbeConfig parse_container_probe_params(const nlohmann::json& params, const std::string& origin);
// Checks one probe's fields (image reference, regex, name) the same way for flags and files;
// returns the problem, or "" when fine.
std::string validate_probe_spec(const ProbeSpec& spec);

// Runs every probe in order and folds them into the `container_probe` CheckResult: status is
// the worst probe's, metrics container.<probe>.start_latency (ms) and .total_time (s).
CheckResult run_container_probes(const ContainerProbeConfig& config, const ProbeContext& context);

}  // namespace gpuqual::probes
