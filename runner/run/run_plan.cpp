#include "runner/run/run_plan.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/base/data_dir.hpp"
#include "core/base/input_error.hpp"

namespace gpuqual {

namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::vector<std::string> suite_names(const std::vector<SuiteCheck>& checks) {
  std::vector<std::string> names;
  for (const auto& c : checks) names.push_back(c.check);
  return names;
}

}  // namespace

std::string suites_dir(const std::string& flag_value) {
#ifndef GPUQUAL_SOURCE_SUITES
#define GPUQUAL_SOURCE_SUITES "suites"
#endif
  return data_dir(flag_value, "GPUQUAL_SUITES_DIR", "suites", GPUQUAL_SOURCE_SUITES);
}

std::vector<std::string> suite_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto ext = e.path().extension();
    if (e.is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolve_suite(const std::string& spec, const std::string& dir) {
  if (spec.empty()) throw InputError("--suite", "", "a suite name or file is required");
  const bool is_path =
      spec.find('/') != std::string::npos || spec.ends_with(".yaml") || spec.ends_with(".yml");
  if (is_path) return spec;
  for (const char* ext : {".yaml", ".yml"}) {
    const fs::path p = fs::path(dir) / (spec + ext);
    std::error_code ec;
    if (fs::exists(p, ec)) return p.string();
  }
  std::vector<std::string> names;
  for (const auto& f : suite_files(dir)) names.push_back(fs::path(f).stem().string());
  throw InputError("--suite", "",
                   fmt::format("no suite \"{}\" in {} (suites there: {})", spec, dir,
                               names.empty() ? "none" : join(names)));
}

std::vector<SuiteCheck> select_checks(const Suite& suite, const std::vector<std::string>& only,
                                      const std::vector<std::string>& skip) {
  const std::vector<std::string> names = suite_names(suite.checks);
  auto require_known = [&](const std::vector<std::string>& list, const char* flag) {
    std::set<std::string> seen;
    for (const auto& n : list) {
      if (std::find(names.begin(), names.end(), n) == names.end()) {
        throw InputError(
            flag, "",
            fmt::format("\"{}\" is not a check of suite {} (its checks: {})", n, suite.name, join(names)));
      }
      if (!seen.insert(n).second) throw InputError(flag, "", fmt::format("\"{}\" is given twice", n));
    }
  };
  require_known(only, "--only");
  require_known(skip, "--skip");
  std::vector<SuiteCheck> out;
  for (const auto& c : suite.checks) {
    const bool wanted = only.empty() || std::find(only.begin(), only.end(), c.check) != only.end();
    const bool dropped = std::find(skip.begin(), skip.end(), c.check) != skip.end();
    if (wanted && !dropped) out.push_back(c);
  }
  if (out.empty())
    throw InputError("--only/--skip", "", fmt::format("no check of suite {} is left to run", suite.name));
  return out;
}

std::vector<int> select_gpus(const std::string& spec, const std::vector<GpuInfo>& node_gpus) {
  std::vector<int> all;
  for (const auto& g : node_gpus) all.push_back(g.index);
  std::sort(all.begin(), all.end());
  if (spec.empty() || spec == "all") return all;
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', pos), spec.size());
    const std::string item = spec.substr(pos, comma - pos);
    int value = -1;
    auto r = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || r.ec != std::errc() || r.ptr != item.data() + item.size() || value < 0 ||
        value > 1023) {
      throw InputError("--gpus", "",
                       fmt::format("\"{}\" is not a GPU index (expected e.g. 0,2 or all)", item));
    }
    if (std::find(out.begin(), out.end(), value) != out.end()) {
      throw InputError("--gpus", "", fmt::format("GPU {} is given twice", value));
    }
    out.push_back(value);
    pos = comma + 1;
  }
  std::sort(out.begin(), out.end());
  if (!all.empty()) {
    for (int g : out) {
      if (!std::binary_search(all.begin(), all.end(), g)) {
        std::string have;
        for (int a : all) have += (have.empty() ? "" : ",") + std::to_string(a);
        throw InputError("--gpus", "", fmt::format("this node has no GPU {} (its GPUs: {})", g, have));
      }
    }
  }
  return out;
}

std::string default_output_path(const std::string& hostname, const std::string& utc_compact) {
  std::string host;
  for (char c : hostname) {
    host.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_');
  }
  if (host.empty()) host = "unknown-host";
  const std::string base = fmt::format("results/{}-{}", host, utc_compact);
  std::string path = base + ".json";
  std::error_code ec;
  for (int n = 2; fs::exists(path, ec); ++n) path = fmt::format("{}-{}.json", base, n);
  return path;
}

std::string side_dir_for(const std::string& record_path) {
  fs::path p(record_path);
  if (p.extension() == ".json") p.replace_extension();
  return p.string() + ".files";
}

}  // namespace gpuqual
