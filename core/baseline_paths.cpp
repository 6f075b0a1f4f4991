// Where `--baseline auto` looks for `<class>.yaml`.
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/baseline.hpp"

#ifndef GPUQUAL_SOURCE_BASELINES
#define GPUQUAL_SOURCE_BASELINES "baselines"
#endif

namespace gpuqual {

namespace fs = std::filesystem;

namespace {

// <prefix>/share/gpuqual/baselines for an installed <prefix>/bin/gpuqual; empty otherwise.
std::string installed_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path dir = exe.parent_path().parent_path() / "share" / "gpuqual" / "baselines";
  return fs::is_directory(dir, ec) ? dir.string() : "";
}

// A slug read from a record names a file: refuse anything that could leave the directory.
bool safe_file_stem(const std::string& slug) {
  if (slug.empty() || slug == "unknown" || slug.front() == '.') return false;
  for (char c : slug) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string baselines_dir(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("GPUQUAL_BASELINES_DIR"); env && *env) return env;
  if (std::string installed = installed_dir(); !installed.empty()) return installed;
  return GPUQUAL_SOURCE_BASELINES;
}

std::string resolve_baseline(const std::string& spec, const std::string& slug, const std::string& dir) {
  if (spec != "auto") return spec;
  if (!safe_file_stem(slug)) return "";
  const fs::path candidate = fs::path(dir) / (slug + ".yaml");
  std::error_code ec;
  return fs::is_regular_file(candidate, ec) ? candidate.string() : "";
}

}  // namespace gpuqual
