#include "probes/container/probe_config.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/record/metric_summary.hpp"
#include "probes/container/cli_runtime.hpp"
#include "probes/container/container_owner.hpp"
#include "probes/container/docker_api_runtime.hpp"
#include "probes/container/names.hpp"

namespace gpuqual::probes {

namespace {

const std::set<std::string> kKinds = {"docker", "podman", "nerdctl", "docker-cli", "cli"};

std::string probe_name_from_image(const std::string& image) {
  std::string last = image.substr(image.rfind('/') == std::string::npos ? 0 : image.rfind('/') + 1);
  last = last.substr(0, last.find('@'));
  return slug(last);
}

ProbeSpec parse_probe(const nlohmann::json& j, const std::string& origin, const std::string& path) {
  JsonObject o(j, origin, path);
  ProbeSpec p;
  p.image = o.nonempty_str("image");
  p.name = o.str_or("name", probe_name_from_image(p.image));
  if (o.has("command")) p.command = o.string_array("command");
  if (o.has("env")) {
    const nlohmann::json& env = j.at("env");
    if (env.is_object()) {
      for (const auto& [k, v] : env.items()) {
        if (!v.is_string()) o.fail("env", fmt::format("value of {} must be a string", k));
        p.env.push_back(k + "=" + v.get<std::string>());
      }
    } else if (env.is_array()) {
      p.env = o.string_array("env");
    } else {
      o.fail("env", "expected an object {K: V} or a list of \"K=V\"");
    }
    for (const auto& kv : p.env)
      if (kv.empty() || kv[0] == '=' || kv.find('=') == std::string::npos)
        o.fail("env", fmt::format("'{}' is not K=V", kv));
  }
  if (o.has("gpus")) {
    const nlohmann::json& g = j.at("gpus");
    const std::string text = g.is_string() ? g.get<std::string>() : g.is_number_integer() ? g.dump() : "";
    const auto req = parse_gpu_request(text);
    if (!req) o.fail("gpus", "expected \"none\", \"all\" or a positive number of GPUs");
    p.gpus = *req;
  }
  p.timeout_s = o.opt_number("timeout_s", 0.1, 86400).value_or(p.timeout_s);
  p.expect_exit = static_cast<int>(o.opt_integer("expect_exit", 0, 255).value_or(0));
  p.expect_output = o.str_or("expect_output", "");
  p.pull = o.opt_boolean("pull").value_or(false);
  p.pull_timeout_s = o.opt_number("pull_timeout_s", 1, 86400).value_or(p.pull_timeout_s);
  p.max_output = static_cast<std::size_t>(
      o.opt_integer("max_output_bytes", 1, 64 << 20).value_or(static_cast<std::int64_t>(p.max_output)));
  p.max_metric_lines = static_cast<std::size_t>(
      o.opt_integer("max_metric_lines", 0, 10000).value_or(static_cast<std::int64_t>(p.max_metric_lines)));
  p.self_probe = o.opt_boolean("self_probe").value_or(false);
  if (p.self_probe && !p.command.empty())
    o.fail("command", "self_probe runs gpuqual's own program: give no command");
  o.finish({"env", "gpus"});
  const std::string problem = validate_probe_spec(p);
  if (!problem.empty()) o.fail("", problem);
  return p;
}

// $DOCKER_HOST when it is unix://PATH, else /var/run/docker.sock.
std::string default_docker_socket() {
  const char* host = std::getenv("DOCKER_HOST");
  if (host && std::string(host).rfind("unix://", 0) == 0) return std::string(host).substr(7);
  return "/var/run/docker.sock";
}

}  // namespace

std::unique_ptr<ContainerRuntime> make_runtime(const RuntimeConfig& config) {
  if (config.kind == "docker") {
    DockerApiOptions o;
    o.socket = config.socket.empty() ? default_docker_socket() : config.socket;
    o.gpu_style = config.gpu_style;
    return std::make_unique<DockerApiRuntime>(o);
  }
  if (!kKinds.count(config.kind))
    throw std::invalid_argument(fmt::format("unknown runtime '{}'", config.kind));
  CliRuntimeOptions o;
  if (config.cli) {
    o.cli = *config.cli;
  } else if (config.kind == "cli") {
    throw std::invalid_argument("runtime 'cli' needs a CLI template");
  } else {
    o.cli = cli_preset(config.kind);
  }
  return std::make_unique<CliRuntime>(o);
}

std::string validate_probe_spec(const ProbeSpec& spec) {
  if (!is_valid_image_reference(spec.image))
    return fmt::format("'{}' is not an image reference (registry/name[:tag][@digest])", spec.image);
  if (spec.name.empty()) return "probe name is empty";
  if (!spec.expect_output.empty()) {
    try {
      std::regex re(spec.expect_output, std::regex::ECMAScript | std::regex::multiline);
    } catch (const std::regex_error& e) {
      return fmt::format("expect_output /{}/ is not a valid regular expression: {}", spec.expect_output,
                         e.what());
    }
  }
  return "";
}

ContainerProbeConfig parse_container_probe_params(const nlohmann::json& params, const std::string& origin) {
  JsonObject o(params, origin, "$");
  ContainerProbeConfig c;
  c.runtime.kind = o.str_or("runtime", "docker");
  if (!kKinds.count(c.runtime.kind))
    o.fail("runtime",
           fmt::format("unknown runtime '{}' (docker, podman, nerdctl, docker-cli, cli)", c.runtime.kind));
  c.runtime.socket = o.str_or("socket", "");
  if (!c.runtime.socket.empty() && c.runtime.kind != "docker") o.fail("socket", "only for runtime docker");
  c.runtime.gpu_style = o.str_or("gpu_style", "device-request");
  if (c.runtime.gpu_style != "device-request" && c.runtime.gpu_style != "cdi")
    o.fail("gpu_style", "expected device-request or cdi");
  if (const nlohmann::json* t = o.opt_object("cli_template")) {
    if (c.runtime.kind == "docker") o.fail("cli_template", "not for runtime docker (the Engine API)");
    nlohmann::json doc = *t;
    if (c.runtime.kind != "cli" && !doc.contains("preset")) doc["preset"] = c.runtime.kind;
    c.runtime.cli = parse_cli_template(doc, origin, o.child_path("cli_template"));
  } else if (c.runtime.kind == "cli") {
    o.fail("cli_template", "runtime cli needs a cli_template");
  }
  c.sweep_orphans = o.opt_boolean("sweep_orphans").value_or(true);
  c.tables_dir = o.str_or("tables_dir", "");
  const nlohmann::json& probes = o.array("probes");
  if (probes.empty()) o.fail("probes", "at least one probe is needed");
  std::set<std::string> names;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const std::string path = JsonObject::index_path(o.child_path("probes"), i);
    ProbeSpec p = parse_probe(probes[i], origin, path);
    if (!names.insert(slug(p.name)).second)
      throw InputError(origin, path + ".name", fmt::format("probe name '{}' is used twice", p.name));
    c.probes.push_back(std::move(p));
  }
  o.finish();
  return c;
}

namespace {

std::string seconds(double s) { return fmt::format("{:.3f}", s); }

// The configured runtime, answering its version; nullptr (and `result` says why) when it cannot
// be made or does not answer.
std::unique_ptr<ContainerRuntime> open_runtime(const ContainerProbeConfig& config,
                                               const ProbeContext& context, CheckResult& result) {
  std::unique_ptr<ContainerRuntime> runtime;
  try {
    runtime = make_runtime(config.runtime);
  } catch (const std::invalid_argument& e) {
    result.status = Status::error;
    result.reason = e.what();
    return nullptr;
  }
  result.attributes["runtime"] = runtime->describe();
  result.attributes["run_id"] = context.run_id;
  try {
    result.attributes["runtime_version"] = runtime->version();
  } catch (const RuntimeUnavailable& e) {
    result.status = Status::error;
    result.reason = fmt::format("container runtime unavailable: {}", e.what());
    return nullptr;
  }
  return runtime;
}

// Containers an earlier gpuqual process left behind (it was killed before its janitor ran).
void remove_orphans(ContainerRuntime& runtime, CheckResult& result) {
  try {
    const SweepResult swept = sweep_orphaned_containers(runtime);
    for (const auto& n : swept.removed) {
      result.findings.push_back(Finding{
          .code = "container.orphan_removed",
          .severity = Severity::info,
          .detail = fmt::format("removed {}, left by a gpuqual process that no longer exists", n),
      });
    }
    if (!swept.failed.empty())
      result.attributes["orphans_not_removed"] = fmt::format("{}", fmt::join(swept.failed, "; "));
  } catch (const std::exception& e) {
    result.attributes["orphan_sweep"] = fmt::format("failed: {}", e.what());
  }
}

// One probe's outcome in the check's result: attributes under the probe's slug, its latency
// metrics, the image's own metrics and the findings.
void record_probe(const ProbeSpec& spec, const ProbeOutcome& o, CheckResult& result) {
  const std::string key = slug(spec.name);
  auto& a = result.attributes;
  a[key + kProbeImageAttr] = spec.image;
  if (!o.image_id.empty()) a[key + kProbeImageIdAttr] = o.image_id;
  if (!o.image_digest.empty()) a[key + kProbeImageDigestAttr] = o.image_digest;
  a[key + ".status"] = std::string(to_string(o.status));
  if (!o.reason.empty()) a[key + ".reason"] = o.reason;
  if (!o.container.empty()) a[key + ".container"] = o.container;
  if (!o.compat.empty()) a[key + ".cuda_compat"] = o.compat;
  if (o.exit_code) a[key + ".exit_code"] = std::to_string(*o.exit_code);
  if (o.created_s) a[key + ".created_s"] = seconds(*o.created_s);
  if (o.started_s) a[key + ".started_s"] = seconds(*o.started_s);
  if (o.exited_s) a[key + ".exited_s"] = seconds(*o.exited_s);
  for (const auto& [k, v] : o.seen) a[key + ".inside." + k] = v;
  if (!o.container.empty()) a[key + ".removed"] = o.removed ? "true" : "false (the janitor retries)";
  if (o.exit_code) {
    a[key + ".output_bytes"] = std::to_string(o.output.size());
    if (o.output_truncated) a[key + ".output_truncated"] = "true";
  }
  if (o.started_s)
    result.metrics.push_back(summarize_metric(fmt::format("container.{}.start_latency", key), "ms",
                                              Direction::lower, std::nullopt, {*o.started_s * 1000.0}));
  if (o.exited_s && o.exit_code)
    result.metrics.push_back(summarize_metric(fmt::format("container.{}.total_time", key), "s",
                                              Direction::lower, std::nullopt, {*o.exited_s}));
  if (o.metric_lines) a[key + ".metric_lines"] = std::to_string(o.metric_lines);
  result.metrics.insert(result.metrics.end(), o.metrics.begin(), o.metrics.end());
  for (const auto& f : o.findings) result.findings.push_back(f);
}

}  // namespace

CheckResult run_container_probes(const ContainerProbeConfig& config, const ProbeContext& context) {
  CheckResult result;
  result.name = "container_probe";
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](CheckResult& r) -> CheckResult& {
    r.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };

  const std::unique_ptr<ContainerRuntime> runtime = open_runtime(config, context, result);
  if (!runtime) return finish(result);
  if (config.sweep_orphans) remove_orphans(*runtime, result);

  Status overall = Status::pass;
  std::vector<std::string> reasons;
  for (const auto& spec : config.probes) {
    if (context.stop && context.stop->load()) {
      overall = worse_of(overall, Status::error);
      reasons.push_back(fmt::format("{}: not run (run stopped)", spec.name));
      continue;
    }
    const ProbeOutcome o = run_probe(*runtime, spec, context);
    overall = worse_of(overall, o.status);
    if (o.status != Status::pass) reasons.push_back(fmt::format("{}: {}", spec.name, o.reason));
    record_probe(spec, o, result);
  }
  result.status = overall;
  result.reason = fmt::format("{}", fmt::join(reasons, "; "));
  return finish(result);
}

}  // namespace gpuqual::probes
