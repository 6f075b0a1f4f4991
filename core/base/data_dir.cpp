#include "core/base/data_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace gpuqual {

std::string installed_data_dir(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path dir = exe.parent_path().parent_path() / "share" / "gpuqual" / name;
  return fs::is_directory(dir, ec) ? dir.string() : "";
}

std::string data_dir(const std::string& flag_value, const char* env_var, const std::string& name,
                     const std::string& source_dir) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv(env_var); env && *env) return env;
  if (std::string installed = installed_data_dir(name); !installed.empty()) return installed;
  return source_dir;
}

}  // namespace gpuqual
