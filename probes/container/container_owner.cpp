#include "probes/container/container_owner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace gpuqual::probes {

namespace {

std::string hostname() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return host;
}

std::string boot_id() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(f, id);
  return id.empty() ? "noboot" : id.substr(0, 8);
}

// Field 22 of /proc/<pid>/stat: start time in clock ticks after boot; "" when no such process.
std::string start_time(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/stat");
  std::string text;
  if (!f || !std::getline(f, text)) return "";
  const std::size_t close = text.rfind(')');  // comm may contain spaces and parentheses
  if (close == std::string::npos) return "";
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i)
    if (!(rest >> field)) return "";
  return field;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next - pos));
    if (next == std::string::npos) return out;
    pos = next + 1;
  }
}

SweepResult remove_all(ContainerRuntime& runtime, const std::vector<std::string>& names) {
  SweepResult r;
  for (const auto& n : names) {
    try {
      runtime.remove(n);
      r.removed.push_back(n);
    } catch (const std::exception& e) {
      r.failed.push_back(fmt::format("{}: {}", n, e.what()));
    }
  }
  return r;
}

}  // namespace

std::string this_process_owner() {
  const std::string pid = std::to_string(::getpid());
  return fmt::format("{}/{}/{}/{}", hostname(), boot_id(), pid, start_time(pid));
}

OwnerState owner_state(const std::string& owner) {
  const auto parts = split(owner, '/');
  if (parts.size() != 4 || parts[0] != hostname()) return OwnerState::foreign;
  if (parts[1] != boot_id()) return OwnerState::gone;  // the host rebooted since
  if (parts[2].empty() || parts[2].find_first_not_of("0123456789") != std::string::npos)
    return OwnerState::foreign;
  const std::string now = start_time(parts[2]);
  return !now.empty() && now == parts[3] ? OwnerState::alive : OwnerState::gone;
}

SweepResult sweep_orphaned_containers(ContainerRuntime& runtime) {
  std::vector<std::string> orphans;
  for (const auto& c : runtime.list_by_label(kOwnerLabel)) {
    auto it = c.labels.find(kOwnerLabel);
    if (it != c.labels.end() && owner_state(it->second) == OwnerState::gone) orphans.push_back(c.name);
  }
  return remove_all(runtime, orphans);
}

SweepResult remove_run_containers(ContainerRuntime& runtime, const std::string& run_id) {
  std::vector<std::string> mine;
  for (const auto& c : runtime.list_by_label(kRunLabel)) {
    auto it = c.labels.find(kRunLabel);
    if (it != c.labels.end() && it->second == run_id) mine.push_back(c.name);
  }
  return remove_all(runtime, mine);
}

}  // namespace gpuqual::probes
