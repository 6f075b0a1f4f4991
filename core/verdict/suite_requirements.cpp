#include "core/verdict/suite_requirements.hpp"

#include <filesystem>
#include <map>
#include <mutex>

#include "core/base/data_dir.hpp"
#include "core/base/json_input.hpp"
#include "core/base/yaml_tree.hpp"

#ifndef GPUQUAL_SOURCE_SUITES
#define GPUQUAL_SOURCE_SUITES "suites"
#endif

namespace gpuqual {

namespace {

// A suite name as `run --suite NAME` resolves it: a file stem, never a path.
bool plain_name(const std::string& s) {
  return !s.empty() && s.find('/') == std::string::npos && s != "." && s != "..";
}

}  // namespace

std::optional<SuiteRequirement> suite_requirement_in(const std::string& name, const std::string& dir) {
  if (!plain_name(name)) return std::nullopt;
  namespace fs = std::filesystem;
  for (const char* ext : {".yaml", ".yml"}) {
    const fs::path path = fs::path(dir) / (name + ext);
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    const YamlLimits limits;
    const YamlTree tree =
        parse_yaml_tree(read_text_file(path.string(), limits.max_bytes), path.string(), limits);
    SuiteRequirement req{name, path.string(), {}};
    // The suite loader (suites/suite_loader.cpp) is strict about this file when it runs; here
    // only the names and `optional` are read.
    const auto checks = tree.root.find("checks");
    if (checks == tree.root.end() || !checks->is_array()) return req;
    for (const auto& entry : *checks) {
      if (!entry.is_object() || !entry.contains("check") || !entry["check"].is_string()) continue;
      const auto opt = entry.find("optional");
      if (opt != entry.end() && opt->is_boolean() && opt->get<bool>()) continue;
      req.checks.push_back(entry["check"].get<std::string>());
    }
    return req;
  }
  return std::nullopt;
}

std::optional<SuiteRequirement> suite_requirement(const std::string& name) {
  // `gpuqual nccl`'s own record (runner/multinode): no suite file, one check, the all-reduce.
  if (name == "nccl-multinode") return SuiteRequirement{name, "gpuqual nccl", {"nccl_allreduce"}};
  static std::mutex mutex;
  static std::map<std::string, std::optional<SuiteRequirement>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const std::string dir = data_dir("", "GPUQUAL_SUITES_DIR", "suites", GPUQUAL_SOURCE_SUITES);
  return cache.emplace(name, suite_requirement_in(name, dir)).first->second;
}

}  // namespace gpuqual
