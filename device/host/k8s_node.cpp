#include "device/host/k8s_node.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"

namespace gpuqual {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's strconv.Quote output, as the kubelet writes label values into the downward API file.
std::string unquote_go(std::string_view v, const std::string& origin, const std::string& where) {
  std::string out;
  for (std::size_t i = 1; i + 1 < v.size(); ++i) {
    char c = v[i];
    if (c == '"') throw InputError(origin, where, "unescaped '\"' inside a quoted value");
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 2 >= v.size()) throw InputError(origin, where, "value ends in a lone backslash");
    char e = v[++i];
    switch (e) {
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'x': {
        int hi = i + 1 < v.size() - 1 ? hex_value(v[i + 1]) : -1;
        int lo = i + 2 < v.size() - 1 ? hex_value(v[i + 2]) : -1;
        if (hi < 0 || lo < 0) throw InputError(origin, where, "bad \\x escape in value");
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        break;
      }
      default:
        throw InputError(origin, where, std::string("unsupported escape \\") + e + " in value");
    }
  }
  return out;
}

}  // namespace

std::string k8s_node_name_from_env() {
  for (const char* name : kNodeNameEnvVars) {
    const char* v = std::getenv(name);
    if (v && *v) return v;
  }
  return {};
}

std::map<std::string, std::string> parse_k8s_labels(std::string_view text, const std::string& origin) {
  std::map<std::string, std::string> labels;
  std::istringstream in{std::string(text)};
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::string where = "line " + std::to_string(line_no);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw InputError(origin, where, "expected key=\"value\", found no '='");
    std::string key = line.substr(first, eq - first);
    if (key.empty() || key.find_first_of(" \t\"") != std::string::npos) {
      throw InputError(origin, where, "bad label key '" + key + "'");
    }
    std::string_view raw = std::string_view(line).substr(eq + 1);
    std::string value;
    if (!raw.empty() && raw.front() == '"') {
      if (raw.size() < 2 || raw.back() != '"') throw InputError(origin, where, "unterminated quoted value");
      value = unquote_go(raw, origin, where);
    } else {
      value = std::string(raw);
    }
    if (!labels.emplace(key, value).second) throw InputError(origin, where, "duplicate label '" + key + "'");
  }
  return labels;
}

std::map<std::string, std::string> read_k8s_labels_file(const std::string& path) {
  // A pod without labels gets an empty downward API file: no labels, not an error.
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0 && !ec)
    return {};
  // A node carries at most a few hundred labels; 1 MiB is generous and bounds a wrong path.
  return parse_k8s_labels(read_text_file(path, 1u << 20), path);
}

}  // namespace gpuqual
