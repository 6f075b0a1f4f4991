#pragma once
// A container runtime CLI described as data: the argv of each operation, with placeholders.
// Built-in presets: podman (GPUs through CDI `--device nvidia.com/gpu=all`), nerdctl and the
// docker CLI (`--gpus all|N`). A template document (JSON, or YAML converted to JSON) may name a
// preset and override any key, or give every key itself:
//
//   {"preset": "nerdctl", "base": ["nerdctl", "--namespace", "k8s.io"]}
//
// Placeholders: an element that is exactly "{labels}", "{env}", "{gpus}", "{mounts}" or
// "{command}" expands to zero or more elements; inside any element "{image}", "{name}",
// "{kv}", "{count}", "{index}", "{source}", "{target}", "{mode}" and "{label}" are replaced.
// Nothing is ever interpreted by a shell.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "probes/container/container_runtime.hpp"

namespace gpuqual::probes {

using Argv = std::vector<std::string>;

struct CliTemplate {
  std::string preset;      // "podman", "nerdctl", "docker-cli", or "" (custom)
  Argv base;               // the program and its global flags
  Argv version;            // prints the version on stdout
  Argv image_inspect;      // {image}: prints a JSON array with Config.Env; non-zero if absent
  Argv pull;               // {image}
  Argv create;             // {name} {labels} {env} {gpus} {mounts} {image} {command}
  Argv start, wait, logs;  // {name}; wait prints the exit code
  Argv remove;             // {name}: force-remove, also a running container
  Argv list;               // {label}: a label key; prints one container name per line
  Argv inspect;            // {name}: prints a JSON array with Config.Labels
  Argv label, env;         // per label / env entry: {kv}
  Argv gpus_all;           // GPU request "all"
  Argv gpus_count;         // GPU request N, once with {count} (nerdctl, docker) ...
  Argv gpus_each;          // ... or once per GPU with {index} (podman CDI)
  Argv mount;              // per bind mount: {source} {target} {mode} (ro|rw)
};

// The built-in presets; throws std::invalid_argument for an unknown name.
CliTemplate cli_preset(const std::string& name);

// Reads a template document; errors are InputError naming `file` and the JSON path.
CliTemplate parse_cli_template(const nlohmann::json& doc, const std::string& file, const std::string& path);

// Replaces the scalar placeholders of `pattern` with `values` ({"image": "busybox", ...}).
std::string substitute(const std::string& pattern, const std::map<std::string, std::string>& values);

// The full argv of each operation.
Argv build_create_argv(const CliTemplate& t, const ContainerSpec& spec);
Argv build_argv(const CliTemplate& t, const Argv& op, const std::map<std::string, std::string>& values);

}  // namespace gpuqual::probes
