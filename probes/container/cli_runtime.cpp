#include "probes/container/cli_runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "core/base/subprocess.hpp"
#include "probes/container/image_digest.hpp"
#include "probes/container/names.hpp"

namespace gpuqual::probes {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// The runtime's own words: the last non-empty line of stderr (podman prints "Error: ..."),
// else of stdout.
std::string message_of(const ProcessResult& r) {
  for (const std::string* s : {&r.err, &r.out}) {
    std::string t = trim(*s);
    if (t.empty()) continue;
    const std::size_t nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
  }
  return "";
}

bool says_not_found(const ProcessResult& r) {
  const std::string e = lower(r.err + "\n" + r.out);
  return e.find("no such") != std::string::npos || e.find("not known") != std::string::npos ||
         e.find("not found") != std::string::npos || e.find("no container with name") != std::string::npos;
}

}  // namespace

CliRuntime::CliRuntime(CliRuntimeOptions options) : options_(std::move(options)) {
  if (options_.cli.base.empty() || options_.cli.base[0].empty())
    throw std::invalid_argument("CLI template without a program");
}

std::string CliRuntime::describe() const {
  return fmt::format("{} (CLI{})", program(), options_.cli.preset.empty() ? ", custom template" : "");
}

namespace {

ProcessResult run_cli(const Argv& argv, double timeout_s, std::size_t max_output = 4u << 20,
                      const std::atomic<bool>* stop = nullptr) {
  ProcessOptions po;
  po.timeout_s = timeout_s;
  po.max_output = max_output;
  po.stop = stop;
  ProcessResult r = run_process(argv, po);
  if (r.spawn_errno == ENOENT)
    throw RuntimeUnavailable(fmt::format("{} is not installed (not found in PATH)", argv.at(0)));
  if (r.spawn_errno) throw RuntimeUnavailable(r.describe(argv.at(0)));
  return r;
}

}  // namespace

std::string CliRuntime::version() {
  const ProcessResult r = run_cli(build_argv(options_.cli, options_.cli.version, {}), 30);
  if (r.timed_out)
    throw RuntimeUnavailable(fmt::format("{} does not answer: {}", program(), r.describe(program())));
  if (!r.ok())
    throw RuntimeUnavailable(
        fmt::format("{} does not work: {}: {}", program(), r.describe(program()), message_of(r)));
  return fmt::format("{} {}", program(), trim(r.out));
}

std::optional<ImageInfo> CliRuntime::inspect_image(const std::string& image) {
  require_image_reference(image);
  const ProcessResult r = run_cli(build_argv(options_.cli, options_.cli.image_inspect, {{"image", image}}),
                                  options_.request_timeout_s);
  if (r.timed_out)
    throw RuntimeUnavailable(fmt::format("inspect image {}: {}", image, r.describe(program())));
  if (!r.ok()) {
    if (says_not_found(r)) return std::nullopt;
    throw RuntimeError(fmt::format("inspect image {}: {}: {}", image, r.describe(program()), message_of(r)));
  }
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  const nlohmann::json* obj = nullptr;
  if (j.is_array() && !j.empty() && j[0].is_object()) obj = &j[0];
  if (j.is_object()) obj = &j;
  if (!obj)
    throw RuntimeError(fmt::format("inspect image {}: {} did not print a JSON object", image, program()));
  ImageInfo info;
  info.id = obj->value("Id", std::string());
  info.repo_digests = repo_digests_of(*obj);
  if (obj->contains("Config") && (*obj)["Config"].is_object() && (*obj)["Config"].contains("Env") &&
      (*obj)["Config"]["Env"].is_array()) {
    for (const auto& e : (*obj)["Config"]["Env"])
      if (e.is_string()) info.env.push_back(e.get<std::string>());
  }
  return info;
}

void CliRuntime::pull_image(const std::string& image, double timeout_s) {
  require_image_reference(image);
  const ProcessResult r = run_cli(build_argv(options_.cli, options_.cli.pull, {{"image", image}}), timeout_s);
  if (!r.ok())
    throw RuntimeError(fmt::format("pull {}: {}: {}", image, r.describe(program()), message_of(r)));
}

void CliRuntime::create(const ContainerSpec& spec) {
  require_container_name(spec.name);
  require_image_reference(spec.image);
  const ProcessResult r = run_cli(build_create_argv(options_.cli, spec), options_.request_timeout_s);
  if (r.timed_out) throw RuntimeUnavailable(fmt::format("create: {}", r.describe(program())));
  if (!r.ok()) throw RuntimeError(fmt::format("create: {}", message_of(r)));
}

void CliRuntime::start(const std::string& name) {
  require_container_name(name);
  const ProcessResult r =
      run_cli(build_argv(options_.cli, options_.cli.start, {{"name", name}}), options_.request_timeout_s);
  if (r.timed_out) throw RuntimeUnavailable(fmt::format("start: {}", r.describe(program())));
  if (!r.ok()) throw RuntimeError(fmt::format("start: {}", message_of(r)));
}

WaitResult CliRuntime::wait(const std::string& name, double timeout_s, const std::atomic<bool>* stop) {
  require_container_name(name);
  const ProcessResult r =
      run_cli(build_argv(options_.cli, options_.cli.wait, {{"name", name}}), timeout_s, 1u << 16, stop);
  WaitResult w;
  if (r.timed_out) {
    w.outcome = WaitResult::Outcome::timed_out;
    return w;
  }
  if (r.stopped) {
    w.outcome = WaitResult::Outcome::stopped;
    return w;
  }
  if (!r.ok()) throw RuntimeError(fmt::format("wait: {}: {}", r.describe(program()), message_of(r)));
  // The exit code is the last line printed.
  const std::string text = trim(r.out);
  const std::size_t nl = text.rfind('\n');
  const std::string last = nl == std::string::npos ? text : text.substr(nl + 1);
  try {
    std::size_t used = 0;
    w.exit_code = std::stoi(last, &used);
    if (used != last.size()) throw std::invalid_argument(last);
  } catch (const std::exception&) {
    throw RuntimeError(fmt::format("wait: {} printed '{}', not an exit code", program(), last.substr(0, 80)));
  }
  return w;
}

ContainerOutput CliRuntime::logs(const std::string& name, std::size_t max_bytes) {
  require_container_name(name);
  const ProcessResult r = run_cli(build_argv(options_.cli, options_.cli.logs, {{"name", name}}),
                                  options_.request_timeout_s, max_bytes);
  if (!r.ok() && !r.out_truncated && !r.err_truncated)
    throw RuntimeError(fmt::format("logs: {}: {}", r.describe(program()), message_of(r)));
  ContainerOutput out;
  out.text = r.out + r.err;
  out.truncated = r.out_truncated || r.err_truncated || r.timed_out;
  if (out.text.size() > max_bytes) {
    out.text.resize(max_bytes);
    out.truncated = true;
  }
  return out;
}

bool CliRuntime::remove(const std::string& name) {
  require_container_name(name);
  const ProcessResult r =
      run_cli(build_argv(options_.cli, options_.cli.remove, {{"name", name}}), options_.request_timeout_s);
  if (r.ok()) return true;
  if (says_not_found(r)) return false;
  throw RuntimeError(fmt::format("remove {}: {}: {}", name, r.describe(program()), message_of(r)));
}

std::vector<LabelledContainer> CliRuntime::list_by_label(const std::string& key) {
  const ProcessResult r =
      run_cli(build_argv(options_.cli, options_.cli.list, {{"label", key}}), options_.request_timeout_s);
  if (!r.ok())
    throw RuntimeError(fmt::format("list containers: {}: {}", r.describe(program()), message_of(r)));
  std::vector<LabelledContainer> out;
  std::size_t pos = 0;
  while (pos < r.out.size()) {
    std::size_t end = r.out.find('\n', pos);
    if (end == std::string::npos) end = r.out.size();
    const std::string name = trim(r.out.substr(pos, end - pos));
    pos = end + 1;
    if (!is_valid_container_name(name)) continue;
    // The labels come from `container inspect`: list formats differ between CLIs.
    const ProcessResult ir =
        run_cli(build_argv(options_.cli, options_.cli.inspect, {{"name", name}}), options_.request_timeout_s);
    if (!ir.ok()) continue;  // removed meanwhile
    const nlohmann::json j = nlohmann::json::parse(ir.out, nullptr, false);
    const nlohmann::json* obj = j.is_array() && !j.empty() ? &j[0] : (j.is_object() ? &j : nullptr);
    LabelledContainer lc;
    lc.name = name;
    if (obj && obj->is_object() && obj->contains("Config") && (*obj)["Config"].is_object() &&
        (*obj)["Config"].contains("Labels") && (*obj)["Config"]["Labels"].is_object())
      for (const auto& [k, v] : (*obj)["Config"]["Labels"].items())
        if (v.is_string()) lc.labels[k] = v.get<std::string>();
    out.push_back(std::move(lc));
  }
  return out;
}

CleanupRecipe CliRuntime::cleanup_recipe(const std::string& name) const {
  require_container_name(name);
  CleanupRecipe recipe;
  recipe.argv = build_argv(options_.cli, options_.cli.remove, {{"name", name}});
  // The janitor calls execve without a PATH search: resolve the program now.
  const std::string resolved = find_program(recipe.argv[0]);
  if (!resolved.empty()) recipe.argv[0] = resolved;
  return recipe;
}

}  // namespace gpuqual::probes
