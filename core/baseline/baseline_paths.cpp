// Where `--baseline auto` looks for `<class>.yaml`.
#include <filesystem>
#include <system_error>

#include "core/base/data_dir.hpp"
#include "core/baseline/baseline.hpp"

#ifndef GPUQUAL_SOURCE_BASELINES
#define GPUQUAL_SOURCE_BASELINES "baselines"
#endif

namespace gpuqual {

namespace fs = std::filesystem;

namespace {

// A slug read from a record names a file: refuse anything that could leave the directory.
bool safe_file_stem(const std::string& slug) {
  if (slug.empty() || slug == "unknown" || slug.front() == '.') return false;
  for (char c : slug) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string baselines_dir(const std::string& flag_value) {
  return data_dir(flag_value, "GPUQUAL_BASELINES_DIR", "baselines", GPUQUAL_SOURCE_BASELINES);
}

std::string resolve_baseline(const std::string& spec, const std::string& slug, const std::string& dir) {
  if (spec != "auto") return spec;
  if (!safe_file_stem(slug)) return "";
  const fs::path candidate = fs::path(dir) / (slug + ".yaml");
  std::error_code ec;
  return fs::is_regular_file(candidate, ec) ? candidate.string() : "";
}

std::string resolve_class_baseline(const std::string& slug, const std::string& dir) {
  if (std::string measured = resolve_baseline("auto", slug, dir); !measured.empty()) return measured;
  return resolve_baseline("auto", slug, (fs::path(dir) / "floors").string());
}

}  // namespace gpuqual
