#include "device/host/container_toolkit.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "device/host/container_runtimes.hpp"

namespace gpuqual {

StackFact read_container_toolkit(const std::string& path_env) {
  for (const char* cli : {"nvidia-ctk", "nvidia-container-cli"}) {
    auto exe = find_on_path(cli, path_env);
    if (!exe) continue;
    auto out = version_output(*exe);
    if (!out) return StackFact::unread(std::string(cli) + " --version failed");
    const std::string version = parse_tool_version(*out);
    if (version.empty()) return StackFact::unread(std::string(cli) + " --version printed no version");
    return StackFact::read(version);
  }
  return StackFact::unread("neither nvidia-ctk nor nvidia-container-cli is on PATH");
}

StackFact read_cdi_specs(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::vector<std::string> specs;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string ext = it->path().extension().string();
      if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
      std::string kind = "(unreadable)";
      try {
        // JSON is YAML, so one parser reads both spellings the CDI spec allows.
        const YAML::Node spec = YAML::LoadFile(it->path().string());
        if (spec.IsMap() && spec["kind"] && spec["kind"].IsScalar()) kind = spec["kind"].as<std::string>();
      } catch (const YAML::Exception&) {
      }
      specs.push_back(kind + "=" + it->path().string());
    }
  }
  std::sort(specs.begin(), specs.end());
  std::string joined;
  for (const auto& s : specs) joined += (joined.empty() ? "" : ",") + s;
  return StackFact::read(joined);
}

}  // namespace gpuqual
