#include "device/host/container_runtimes.hpp"

#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "core/base/subprocess.hpp"

namespace gpuqual {

namespace {

// The programs looked for, in report order.
const std::vector<std::string>& known_container_runtimes() {
  // Engines first, then the low-level runtimes and NVIDIA's toolkit pieces they would use.
  static const std::vector<std::string> names{
      "docker", "podman", "containerd", "crio", "runc", "crun", "nvidia-container-runtime", "nvidia-ctk"};
  return names;
}

}  // namespace

std::string parse_tool_version(std::string_view version_output) {
  std::string first_line(version_output.substr(0, version_output.find('\n')));
  static const std::regex version(R"(\b[0-9]+\.[0-9]+[0-9A-Za-z.+~_-]*)");
  std::smatch m;
  if (std::regex_search(first_line, m, version)) return m.str();
  return {};
}

std::optional<std::string> find_on_path(const std::string& program, const std::string& path_env) {
  std::istringstream dirs(path_env);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;  // an empty PATH entry means "." — never trusted here
    std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::optional<std::string> version_output(const std::string& program) {
  ProcessOptions options;
  options.timeout_s = 5.0;
  options.max_output = std::size_t{64} << 10;
  options.merge_stderr = true;
  try {
    ProcessResult r = run_process({program, "--version"}, options);
    if (r.timed_out || !r.ok()) return std::nullopt;
    return std::move(r.out);
  } catch (const std::runtime_error&) {
    return std::nullopt;  // no pipe or no process to be had: the version is not known
  }
}

std::vector<std::string> detect_container_runtimes() {
  const char* path = std::getenv("PATH");
  std::vector<std::string> found;
  for (const auto& name : known_container_runtimes()) {
    auto exe = find_on_path(name, path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
    if (!exe) continue;
    std::string version;
    if (auto out = version_output(*exe)) version = parse_tool_version(*out);
    found.push_back(name + " " + (version.empty() ? "unknown" : version));
  }
  return found;
}

}  // namespace gpuqual
