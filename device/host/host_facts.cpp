#include "device/host/host_facts.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuqual {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// os-release values may be quoted with " or ' (shell syntax); backslash escapes are rare and
// only matter inside double quotes.
std::string unquote(std::string_view v) {
  v = trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    std::string out;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
      if (v.front() == '"' && v[i] == '\\' && i + 2 < v.size()) ++i;
      out += v[i];
    }
    return out;
  }
  return std::string(v);
}

}  // namespace

std::string read_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

std::string read_kernel() {
  struct utsname u {};
  if (uname(&u) != 0) return {};
  return u.release;
}

std::string read_arch() {
  struct utsname u {};
  if (uname(&u) != 0) return {};
  return u.machine;
}

std::string parse_os_release(std::string_view text) {
  std::string pretty, name, version;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find('=');
    if (eq == std::string::npos || line.starts_with('#')) continue;
    auto key = trim(std::string_view(line).substr(0, eq));
    auto value = unquote(std::string_view(line).substr(eq + 1));
    if (key == "PRETTY_NAME")
      pretty = value;
    else if (key == "NAME")
      name = value;
    else if (key == "VERSION_ID")
      version = value;
  }
  if (!pretty.empty()) return pretty;
  if (!name.empty() && !version.empty()) return name + " " + version;
  return name;
}

std::string read_os_name(const std::string& os_release) { return parse_os_release(slurp(os_release)); }

std::string parse_cpu_model(std::string_view cpuinfo_text) {
  std::string fallback;
  std::istringstream in{std::string(cpuinfo_text)};
  for (std::string line; std::getline(in, line);) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto key = trim(std::string_view(line).substr(0, colon));
    auto value = std::string(trim(std::string_view(line).substr(colon + 1)));
    if (key == "model name" && !value.empty()) return value;
    if ((key == "Model" || key == "Hardware") && fallback.empty()) fallback = value;
    if (key == "CPU part" && fallback.empty()) fallback = "CPU part " + value;
  }
  return fallback;
}

std::string read_cpu_model(const std::string& cpuinfo) { return parse_cpu_model(slurp(cpuinfo)); }

std::optional<int> count_numa_nodes(const std::string& node_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(node_dir, ec)) return std::nullopt;
  int n = 0;
  for (const auto& entry : fs::directory_iterator(node_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.starts_with("node") &&
        name.find_first_not_of("0123456789", 4) == std::string::npos) {
      ++n;
    }
  }
  if (ec) return std::nullopt;
  return n;
}

std::string read_boot_id(const std::string& path) { return std::string(trim(slurp(path))); }

std::optional<double> parse_uptime(std::string_view text) {
  text = trim(text);
  const std::string_view first = text.substr(0, text.find(' '));
  double value = 0;
  const auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), value);
  if (first.empty() || ec != std::errc() || end != first.data() + first.size() || !std::isfinite(value) ||
      value < 0) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> read_uptime_s(const std::string& path) { return parse_uptime(slurp(path)); }

}  // namespace gpuqual
