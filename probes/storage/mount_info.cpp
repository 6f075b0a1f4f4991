#include "probes/storage/mount_info.hpp"

#include <fstream>
#include <sstream>

namespace gpuqual::probes {

namespace {

// mountinfo escapes space, tab, newline and backslash as a backslash and three octal digits.
std::string unescape_octal(std::string_view s) {
  const auto is_oct = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && is_oct(s[i + 1]) && is_oct(s[i + 2]) && is_oct(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

bool has_option(const std::string& list, std::string_view option) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    if (std::string_view(list).substr(start, end - start) == option) return true;
    start = end + 1;
  }
  return false;
}

bool is_path_prefix(const std::string& mount_point, const std::string& path) {
  if (mount_point == "/") return true;
  if (path.compare(0, mount_point.size(), mount_point) != 0) return false;
  return path.size() == mount_point.size() || path[mount_point.size()] == '/';
}

}  // namespace

bool MountEntry::read_only() const {
  return has_option(mount_options, "ro") || has_option(super_options, "ro");
}

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  // 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
  // (1)(2)(3)   (4)   (5)      (6)      (7...)  -  (8)     (9)        (10)
  std::vector<MountEntry> out;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::vector<std::string> fields;
    for (std::string w; f >> w;) fields.push_back(w);
    std::size_t dash = 0;
    for (std::size_t i = 6; i < fields.size(); ++i) {
      if (fields[i] == "-") {
        dash = i;
        break;
      }
    }
    if (dash == 0 || fields.size() < dash + 3) continue;
    MountEntry e;
    e.mount_point = unescape_octal(fields[4]);
    e.mount_options = fields[5];
    e.fs_type = fields[dash + 1];
    e.source = unescape_octal(fields[dash + 2]);
    e.super_options = dash + 3 < fields.size() ? fields[dash + 3] : "";
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<MountEntry> mount_of(const std::vector<MountEntry>& mounts, const std::string& canonical_path) {
  const MountEntry* best = nullptr;
  for (const auto& m : mounts) {
    if (!is_path_prefix(m.mount_point, canonical_path)) continue;
    if (best == nullptr || m.mount_point.size() >= best->mount_point.size()) best = &m;
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

std::vector<MountEntry> read_mountinfo() {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_mountinfo(ss.str());
}

}  // namespace gpuqual::probes
