#include "probes/container/cli_template.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/base/json_fields.hpp"

namespace gpuqual::probes {

namespace {

// docker-compatible CLIs (nerdctl, docker): --gpus, no stop timeout on rm.
CliTemplate docker_like(const std::string& preset, const std::string& program) {
  CliTemplate t;
  t.preset = preset;
  t.base = {program};
  t.version = {"version", "--format", "{{.Client.Version}}"};
  t.image_inspect = {"image", "inspect", "{image}"};
  t.pull = {"pull", "{image}"};
  t.create = {"create", "--name",   "{name}",  "{labels}", "{env}",
              "{gpus}", "{mounts}", "{image}", "{command}"};
  t.start = {"start", "{name}"};
  t.wait = {"wait", "{name}"};
  t.logs = {"logs", "{name}"};
  t.remove = {"rm", "--force", "{name}"};
  t.list = {"ps", "--all", "--filter", "label={label}", "--format", "{{.Names}}"};
  t.inspect = {"container", "inspect", "{name}"};
  t.label = {"--label", "{kv}"};
  t.env = {"--env", "{kv}"};
  t.gpus_all = {"--gpus", "all"};
  t.gpus_count = {"--gpus", "{count}"};
  t.mount = {"--volume", "{source}:{target}:{mode}"};
  return t;
}

CliTemplate podman_preset() {
  CliTemplate t = docker_like("podman", "podman");
  // Podman requests GPUs through CDI (nvidia-ctk cdi generate); --time 0: no grace period.
  t.gpus_all = {"--device", "nvidia.com/gpu=all"};
  t.gpus_count.clear();
  t.gpus_each = {"--device", "nvidia.com/gpu={index}"};
  t.remove = {"rm", "--force", "--time", "0", "{name}"};
  return t;
}

const char* const kListKeys[] = {"base", "version",  "image_inspect", "pull",      "create",  "start",
                                 "wait", "logs",     "remove",        "list",      "inspect", "label",
                                 "env",  "gpus_all", "gpus_count",    "gpus_each", "mount"};

Argv* field(CliTemplate& t, const std::string& key) {
  static const std::map<std::string, Argv CliTemplate::*> members = {
      {"base", &CliTemplate::base},
      {"version", &CliTemplate::version},
      {"image_inspect", &CliTemplate::image_inspect},
      {"pull", &CliTemplate::pull},
      {"create", &CliTemplate::create},
      {"start", &CliTemplate::start},
      {"wait", &CliTemplate::wait},
      {"logs", &CliTemplate::logs},
      {"remove", &CliTemplate::remove},
      {"list", &CliTemplate::list},
      {"inspect", &CliTemplate::inspect},
      {"label", &CliTemplate::label},
      {"env", &CliTemplate::env},
      {"gpus_all", &CliTemplate::gpus_all},
      {"gpus_count", &CliTemplate::gpus_count},
      {"gpus_each", &CliTemplate::gpus_each},
      {"mount", &CliTemplate::mount}};
  return &(t.*members.at(key));
}

}  // namespace

CliTemplate cli_preset(const std::string& name) {
  if (name == "podman") return podman_preset();
  if (name == "nerdctl") return docker_like("nerdctl", "nerdctl");
  if (name == "docker-cli") return docker_like("docker-cli", "docker");
  throw std::invalid_argument(fmt::format("unknown CLI preset '{}' (podman, nerdctl, docker-cli)", name));
}

CliTemplate parse_cli_template(const nlohmann::json& doc, const std::string& file, const std::string& path) {
  JsonObject o(doc, file, path);
  CliTemplate t;
  const std::string preset = o.str_or("preset", "");
  if (!preset.empty()) {
    try {
      t = cli_preset(preset);
    } catch (const std::invalid_argument& e) {
      o.fail("preset", e.what());
    }
  }
  for (const char* key : kListKeys) {
    const bool optional_key = std::string(key) == "gpus_count" || std::string(key) == "gpus_each";
    if (!o.has(key)) {
      if (preset.empty() && !optional_key) o.fail(key, "required field is missing (or name a \"preset\")");
      continue;
    }
    *field(t, key) = o.string_array(key);
  }
  o.finish();
  if (t.base.empty() || t.base[0].empty()) o.fail("base", "must name the program");
  for (const char* key : {"image_inspect", "create", "start", "wait", "logs", "remove", "list", "inspect"})
    if (field(t, key)->empty()) o.fail(key, "must not be empty");
  if (!t.gpus_count.empty() && !t.gpus_each.empty())
    o.fail("gpus_each", "give gpus_count or gpus_each, not both");
  return t;
}

std::string substitute(const std::string& pattern, const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t pos = 0;
  while (pos < pattern.size()) {
    const std::size_t open = pattern.find('{', pos);
    if (open == std::string::npos) break;
    const std::size_t close = pattern.find('}', open);
    if (close == std::string::npos) break;
    const std::string key = pattern.substr(open + 1, close - open - 1);
    auto it = values.find(key);
    if (it == values.end()) {  // not ours (a Go template such as {{.Names}}): keep it
      out.append(pattern, pos, open + 1 - pos);
      pos = open + 1;
      continue;
    }
    out.append(pattern, pos, open - pos);
    out += it->second;
    pos = close + 1;
  }
  out.append(pattern, pos, std::string::npos);
  return out;
}

Argv build_argv(const CliTemplate& t, const Argv& op, const std::map<std::string, std::string>& values) {
  Argv argv = t.base;
  for (const auto& a : op) argv.push_back(substitute(a, values));
  return argv;
}

Argv build_create_argv(const CliTemplate& t, const ContainerSpec& spec) {
  auto expand = [](const Argv& pattern, const std::map<std::string, std::string>& values, Argv& out) {
    for (const auto& a : pattern) out.push_back(substitute(a, values));
  };
  Argv argv = t.base;
  const std::map<std::string, std::string> scalars = {{"name", spec.name}, {"image", spec.image}};
  for (const auto& a : t.create) {
    if (a == "{labels}") {
      for (const auto& [k, v] : spec.labels) expand(t.label, {{"kv", k + "=" + v}}, argv);
    } else if (a == "{env}") {
      for (const auto& kv : spec.env) expand(t.env, {{"kv", kv}}, argv);
    } else if (a == "{gpus}") {
      if (spec.gpus.kind == GpuRequest::Kind::all) {
        expand(t.gpus_all, {}, argv);
      } else if (spec.gpus.kind == GpuRequest::Kind::count) {
        if (!t.gpus_count.empty()) {
          expand(t.gpus_count, {{"count", std::to_string(spec.gpus.count)}}, argv);
        } else if (!t.gpus_each.empty()) {
          for (int i = 0; i < spec.gpus.count; ++i) expand(t.gpus_each, {{"index", std::to_string(i)}}, argv);
        } else {
          throw std::invalid_argument(
              "the CLI template cannot request a number of GPUs (no gpus_count/gpus_each)");
        }
      }
    } else if (a == "{mounts}") {
      for (const auto& m : spec.mounts)
        expand(t.mount, {{"source", m.source}, {"target", m.target}, {"mode", m.read_only ? "ro" : "rw"}},
               argv);
    } else if (a == "{command}") {
      for (const auto& c : spec.command) argv.push_back(c);  // verbatim: never substituted
    } else {
      argv.push_back(substitute(a, scalars));
    }
  }
  return argv;
}

}  // namespace gpuqual::probes
