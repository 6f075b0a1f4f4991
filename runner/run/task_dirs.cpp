#include "runner/run/task_dirs.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpuqual {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "gpuqual-run-";
constexpr const char* kOwnerFile = "owner";

// Field 22 of /proc/PID/stat: the start time in clock ticks since boot. "" when the process is
// gone. The command name (field 2) may hold spaces and parentheses: count from the last ')'.
std::string start_time(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return "";
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return field;
  }
  return "";
}

// The pid namespace this process sees ("pid:[4026531836]"): a pid means something only there.
std::string pid_namespace() {
  std::error_code ec;
  const fs::path ns = fs::read_symlink("/proc/self/ns/pid", ec);
  return ec ? "?" : ns.string();
}

bool owner_alive(const fs::path& dir, bool& has_owner) {
  std::ifstream in(dir / kOwnerFile);
  pid_t pid = 0;
  std::string started, ns;
  has_owner = static_cast<bool>(in >> pid >> started);
  if (!has_owner) return false;
  // Another container sharing this /tmp: its pids are not ours to look up, so it is not judged.
  // (An owner file of two fields, from before the namespace was written, is judged by pid.)
  if (in >> ns && ns != pid_namespace()) return true;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  return start_time(pid) == started;  // same pid, other process: the owner is gone
}

}  // namespace

std::string task_dir_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

std::vector<std::string> sweep_stale_task_dirs(const std::string& root) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    if (p.filename().string().rfind(kPrefix, 0) != 0) continue;
    std::error_code e;
    if (!fs::is_directory(fs::symlink_status(p, e))) continue;  // never follow a link out of root
    bool has_owner = false;
    if (owner_alive(p, has_owner)) continue;
    if (!has_owner) {
      const auto age = fs::file_time_type::clock::now() - fs::last_write_time(p, e);
      if (e || age < std::chrono::hours(1)) continue;
    }
    if (fs::remove_all(p, e) > 0 && !e) removed.push_back(p.string());
  }
  return removed;
}

std::string make_task_dir(const std::string& root) {
  sweep_stale_task_dirs(root);
  std::string templ = fmt::format("{}/{}XXXXXX", root, kPrefix);
  if (!::mkdtemp(templ.data())) {
    throw std::runtime_error(
        fmt::format("cannot create a work directory {}: {}", templ, std::strerror(errno)));
  }
  std::ofstream owner(fs::path(templ) / kOwnerFile);
  owner << ::getpid() << ' ' << start_time(::getpid()) << ' ' << pid_namespace() << '\n';
  if (!owner.flush()) {
    throw std::runtime_error(fmt::format("cannot write {}/{}: {}", templ, kOwnerFile, std::strerror(errno)));
  }
  return templ;
}

}  // namespace gpuqual
