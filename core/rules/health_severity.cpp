#include "core/rules/health_severity.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "core/base/data_dir.hpp"
#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/rules/health_core_fields.hpp"
#include "core/rules/health_rules.hpp"

#ifndef GPUQUAL_SOURCE_BASELINES
#define GPUQUAL_SOURCE_BASELINES "baselines"
#endif

namespace gpuqual {

namespace {

constexpr std::size_t kMaxTableBytes = 1u << 20;

std::string where_of(const YAML::Node& n, const std::string& path) {
  if (n.Mark().is_null()) return path;
  return path + " (line " + std::to_string(n.Mark().line + 1) + ")";
}

YAML::Node parse_yaml(const std::string& text, const std::string& origin) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) throw InputError(origin, "", "expected a mapping at the top level");
    return root;
  } catch (const YAML::ParserException& e) {
    throw InputError(origin, "line " + std::to_string(e.mark.line + 1), e.msg);
  }
}

std::string scalar(const YAML::Node& n, const std::string& origin, const std::string& path) {
  if (!n.IsScalar()) throw InputError(origin, where_of(n, path), "expected a string");
  return n.Scalar();
}

Severity severity_of(const YAML::Node& n, const std::string& origin, const std::string& path) {
  const std::string s = scalar(n, origin, path);
  auto sev = parse_severity(s);
  if (!sev)
    throw InputError(origin, where_of(n, path),
                     "unknown severity \"" + s + "\" (expected info, warn or fail)");
  return *sev;
}

NodeAction node_action_of(const YAML::Node& n, const std::string& origin, const std::string& path) {
  const std::string s = scalar(n, origin, path);
  auto a = parse_node_action(s);
  if (!a)
    throw InputError(origin, where_of(n, path),
                     "unknown node_action \"" + s + "\" (expected " + std::string(node_action_names()) + ")");
  return *a;
}

void check_schema(const YAML::Node& root, const std::string& expected, const std::string& origin) {
  const YAML::Node s = root["schema"];
  if (!s) throw InputError(origin, "schema", "required field is missing (expected " + expected + ")");
  if (scalar(s, origin, "schema") != expected) {
    throw InputError(origin, where_of(s, "schema"),
                     "expected \"" + expected + "\", found \"" + s.Scalar() + "\"");
  }
}

// Reads the fields present in `n` into `rule`; with `complete`, severity/meaning/action are
// required (shipped tables), else any subset (overrides).
void read_rule(const YAML::Node& n, SeverityRule& rule, bool complete, bool is_xid, const std::string& origin,
               const std::string& path) {
  if (!n.IsMap()) throw InputError(origin, where_of(n, path), "expected a mapping");
  for (const auto& kv : n) {
    const std::string key = scalar(kv.first, origin, path);
    const std::string p = path + "." + key;
    if (key == "severity")
      rule.severity = severity_of(kv.second, origin, p);
    else if (key == "own_kernel_severity" && is_xid)
      rule.own_kernel_severity = severity_of(kv.second, origin, p);
    else if (key == "mnemonic" && is_xid)
      rule.mnemonic = scalar(kv.second, origin, p);
    else if (key == "meaning")
      rule.meaning = scalar(kv.second, origin, p);
    else if (key == "action")
      rule.action = scalar(kv.second, origin, p);
    else if (key == "node_action")
      rule.node_action = node_action_of(kv.second, origin, p);
    else if (key == "source")
      rule.source = scalar(kv.second, origin, p);
    else
      throw InputError(origin, where_of(kv.first, p), "unknown field \"" + key + "\"");
  }
  if (complete) {
    for (const char* required : {"severity", "meaning", "action", "node_action"}) {
      if (!n[required])
        throw InputError(origin, where_of(n, path),
                         std::string("required field \"") + required + "\" is missing");
    }
  }
}

int xid_code(const YAML::Node& key, const std::string& origin, const std::string& path) {
  const std::string s = scalar(key, origin, path);
  std::size_t used = 0;
  int code = -1;
  try {
    code = std::stoi(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || code < 0 || code > 100000) {
    throw InputError(origin, where_of(key, path), "Xid code \"" + s + "\" is not a non-negative integer");
  }
  return code;
}

void read_xids(const YAML::Node& xids, SeverityTable& t, bool complete, const std::string& origin) {
  if (!xids.IsMap())
    throw InputError(origin, where_of(xids, "xids"), "expected a mapping of Xid code → entry");
  for (const auto& kv : xids) {
    const int code = xid_code(kv.first, origin, "xids");
    const std::string p = "xids." + std::to_string(code);
    auto it = t.xids.find(code);
    if (it == t.xids.end()) {
      // A code new to the table needs a severity; the other fields default to the unknown entry.
      if (!complete && !kv.second["severity"]) {
        throw InputError(origin, where_of(kv.second, p), "a new Xid code needs a severity");
      }
      SeverityRule rule = complete ? SeverityRule{} : t.unknown_xid;
      read_rule(kv.second, rule, complete, true, origin, p);
      t.xids.emplace(code, rule);
    } else {
      if (complete) throw InputError(origin, where_of(kv.first, p), "duplicate Xid code");
      read_rule(kv.second, it->second, false, true, origin, p);
    }
  }
}

}  // namespace

const SeverityRule& SeverityTable::finding(const std::string& code) const {
  auto it = findings.find(code);
  if (it == findings.end()) throw std::out_of_range("health severity table has no finding code " + code);
  return it->second;
}

const SeverityRule& SeverityTable::xid(int code) const {
  auto it = xids.find(code);
  return it == xids.end() ? unknown_xid : it->second;
}

namespace {

// Parses the two shipped tables. `required_codes`: finding codes the table must define.
// Throws InputError(file, "findings.<code>.severity" or "line N", problem).
SeverityTable parse_severity_tables(const std::string& findings_yaml, const std::string& findings_origin,
                                    const std::string& xid_yaml, const std::string& xid_origin,
                                    const std::vector<std::string>& required_codes) {
  SeverityTable t;
  try {
    YAML::Node f = parse_yaml(findings_yaml, findings_origin);
    check_schema(f, "gpuqual.health-findings/v1", findings_origin);
    const YAML::Node findings = f["findings"];
    if (!findings || !findings.IsMap())
      throw InputError(findings_origin, "findings", "required mapping is missing");
    for (const auto& kv : findings) {
      const std::string code = scalar(kv.first, findings_origin, "findings");
      SeverityRule rule;
      read_rule(kv.second, rule, true, false, findings_origin, "findings." + code);
      if (!t.findings.emplace(code, rule).second) {
        throw InputError(findings_origin, where_of(kv.first, "findings." + code), "duplicate finding code");
      }
    }
    for (const auto& code : required_codes) {
      if (!t.findings.count(code))
        throw InputError(findings_origin, "findings", "finding code \"" + code + "\" is missing");
    }
    for (const auto& kv : f) {
      const std::string key = kv.first.Scalar();
      if (key != "schema" && key != "source" && key != "findings") {
        throw InputError(findings_origin, where_of(kv.first, key), "unknown field \"" + key + "\"");
      }
    }
    t.origins.push_back(findings_origin);

    YAML::Node x = parse_yaml(xid_yaml, xid_origin);
    check_schema(x, "gpuqual.xid-severity/v1", xid_origin);
    const YAML::Node unknown = x["unknown"];
    if (!unknown) throw InputError(xid_origin, "unknown", "required entry for unlisted Xid codes is missing");
    read_rule(unknown, t.unknown_xid, true, true, xid_origin, "unknown");
    const YAML::Node xids = x["xids"];
    if (!xids) throw InputError(xid_origin, "xids", "required mapping is missing");
    read_xids(xids, t, true, xid_origin);
    for (const auto& kv : x) {
      const std::string key = kv.first.Scalar();
      if (key != "schema" && key != "source" && key != "unknown" && key != "xids") {
        throw InputError(xid_origin, where_of(kv.first, key), "unknown field \"" + key + "\"");
      }
    }
    t.origins.push_back(xid_origin);
  } catch (const YAML::Exception& e) {
    throw InputError(findings_origin + " / " + xid_origin, "line " + std::to_string(e.mark.line + 1), e.msg);
  }
  return t;
}

}  // namespace

SeverityTable load_severity_tables(const std::string& dir, const std::vector<std::string>& required_codes) {
  const std::string f = dir + "/" + kHealthFindingsFile;
  const std::string x = dir + "/" + kXidSeverityFile;
  return parse_severity_tables(read_text_file(f, kMaxTableBytes), f, read_text_file(x, kMaxTableBytes), x,
                               required_codes);
}

void apply_severity_overrides(SeverityTable& table, const std::string& yaml, const std::string& origin) {
  try {
    YAML::Node root = parse_yaml(yaml, origin);
    check_schema(root, "gpuqual.health-overrides/v1", origin);
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (key == "schema" || key == "source") continue;
      if (key == "findings") {
        if (!kv.second.IsMap()) throw InputError(origin, where_of(kv.second, key), "expected a mapping");
        for (const auto& f : kv.second) {
          const std::string code = scalar(f.first, origin, "findings");
          auto it = table.findings.find(code);
          if (it == table.findings.end()) {
            throw InputError(origin, where_of(f.first, "findings." + code),
                             "no finding code \"" + code + "\" to override");
          }
          read_rule(f.second, it->second, false, false, origin, "findings." + code);
        }
      } else if (key == "xids") {
        read_xids(kv.second, table, false, origin);
      } else if (key == "unknown") {
        read_rule(kv.second, table.unknown_xid, false, true, origin, "unknown");
      } else {
        throw InputError(origin, where_of(kv.first, key), "unknown field \"" + key + "\"");
      }
    }
  } catch (const YAML::Exception& e) {
    throw InputError(origin, "line " + std::to_string(e.mark.line + 1), e.msg);
  }
  table.origins.push_back(origin);
}

void load_severity_overrides(SeverityTable& table, const std::string& path) {
  apply_severity_overrides(table, read_text_file(path, kMaxTableBytes), path);
}

const SeverityTable& judging_severity_table() {
  static const SeverityTable table = [] {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("GPUQUAL_BASELINES_DIR"); env && *env) dirs.emplace_back(env);
    if (std::string installed = installed_data_dir("baselines"); !installed.empty())
      dirs.push_back(std::move(installed));
    dirs.emplace_back(GPUQUAL_SOURCE_BASELINES);
    std::error_code ec;
    auto has_tables = [&](const std::string& dir) {
      return std::filesystem::is_regular_file(std::filesystem::path(dir) / kXidSeverityFile, ec) &&
             std::filesystem::is_regular_file(std::filesystem::path(dir) / kHealthFindingsFile, ec);
    };
    auto dir = std::find_if(dirs.begin(), dirs.end(), has_tables);
    // The last candidate is the source tree: its load names the missing file.
    SeverityTable t = load_severity_tables(dir == dirs.end() ? dirs.back() : *dir, health_finding_codes());
    if (const char* overrides = std::getenv(kHealthOverridesEnv); overrides && *overrides) {
      load_severity_overrides(t, overrides);
    }
    return t;
  }();
  return table;
}

namespace {

// 79 for "xid.79"; nullopt for a code that is not xid.<non-negative integer>.
std::optional<int> xid_of_code(const std::string& code) {
  int xid = -1;
  const char* end = code.data() + code.size();
  auto [ptr, ec] = std::from_chars(code.data() + 4, end, xid);
  if (ec != std::errc() || ptr != end || xid < 0) return std::nullopt;
  return xid;
}

}  // namespace

std::optional<Severity> table_severity(const SeverityTable& table, const std::string& code) {
  if (code.starts_with("xid.")) {
    const std::optional<int> xid = xid_of_code(code);
    if (!xid) return std::nullopt;
    const SeverityRule& rule = table.xid(*xid);
    // An application-side Xid is rated higher only while gpuqual's own kernels ran, which the
    // finding does not say: the lower rating is the floor.
    if (rule.own_kernel_severity) return std::min(rule.severity, *rule.own_kernel_severity);
    return rule.severity;
  }
  auto it = table.findings.find(code);
  if (it == table.findings.end()) return std::nullopt;
  return it->second.severity;
}

std::optional<NodeAction> table_node_action(const SeverityTable& table, const std::string& code) {
  if (code.starts_with("xid.")) {
    const std::optional<int> xid = xid_of_code(code);
    if (!xid) return std::nullopt;
    return table.xid(*xid).node_action;
  }
  auto it = table.findings.find(code);
  if (it == table.findings.end()) return std::nullopt;
  return it->second.node_action;
}

Finding with_table_severity(const SeverityTable& table, Finding f) {
  if (auto floor = table_severity(table, f.code); floor && *floor > f.severity) f.severity = *floor;
  // An NVML answer GPU_IS_LOST the finding records is a lost GPU, whatever its code: records of
  // a gpuqual before gpu.lost wrote it as nvml.readings_unavailable (info).
  if (nvml_answer_lost(f.detail)) {
    if (auto lost = table_severity(table, "gpu.lost"); lost && *lost > f.severity) f.severity = *lost;
  }
  return f;
}

std::string severity_tables_dir(const std::string& flag_value) {
  // As baselines_dir, except that an installed directory counts only when it has the tables.
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("GPUQUAL_BASELINES_DIR"); env && *env) return env;
  std::error_code ec;
  if (const std::string installed = installed_data_dir("baselines");
      !installed.empty() &&
      std::filesystem::is_regular_file(std::filesystem::path(installed) / kXidSeverityFile, ec)) {
    return installed;
  }
  return GPUQUAL_SOURCE_BASELINES;
}

}  // namespace gpuqual
