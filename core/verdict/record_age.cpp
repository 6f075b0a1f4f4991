#include "core/verdict/record_age.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/base/text_case.hpp"
#include "core/base/utc_time.hpp"

namespace gpuqual {

namespace {

using nlohmann::json;

// A clock a few minutes ahead of this machine's is ordinary skew, not a record from the future.
constexpr std::int64_t kFutureSkewMs = 5 * 60 * 1000;

std::string string_at(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

CurrentNode current_node(const json& node, const std::string& origin, const std::string& where) {
  if (!node.is_object() || node.value("kind", "Node") != "Node")
    throw InputError(origin, where, "not a Kubernetes Node object");
  CurrentNode s;
  const json meta = node.value("metadata", json::object());
  s.name = meta.is_object() ? string_at(meta, "name") : "";
  if (s.name.empty()) throw InputError(origin, where + ".metadata.name", "a Node needs a name");
  std::map<std::string, std::string> labels;
  if (auto l = meta.find("labels"); l != meta.end() && l->is_object()) {
    for (const auto& [k, v] : l->items()) {
      if (v.is_string()) labels[k] = v.get<std::string>();
    }
  }
  s.driver_version = driver_from_labels(labels);
  const json status = node.value("status", json::object());
  const json info = status.is_object() ? status.value("nodeInfo", json::object()) : json::object();
  if (info.is_object()) {
    s.boot_id = string_at(info, "bootID");
    s.kubelet_version = string_at(info, "kubeletVersion");
    s.kernel_version = string_at(info, "kernelVersion");
  }
  return s;
}

// "the node now runs kubelet v1.31.0, the record was taken under v1.30.1"; "" when they agree or
// the Node does not say.
std::string differs(const char* what, const std::string& recorded, const std::string& now) {
  if (now.empty() || recorded == now) return "";
  if (recorded.empty()) return fmt::format("the record does not say its {}; the node runs {} now", what, now);
  return fmt::format("taken under {} {}; the node runs {} now", what, recorded, now);
}

std::string short_id(const std::string& id) { return id.substr(0, 8); }

}  // namespace

std::string driver_from_labels(const std::map<std::string, std::string>& labels) {
  auto get = [&](const char* key) {
    auto it = labels.find(key);
    return it == labels.end() ? std::string() : it->second;
  };
  if (std::string full = get("nvidia.com/cuda.driver-version.full"); !full.empty()) return full;
  auto joined = [&](const char* major, const char* minor, const char* rev) {
    const std::string a = get(major), b = get(minor), c = get(rev);
    if (a.empty() || b.empty()) return std::string();
    return c.empty() ? a + "." + b : a + "." + b + "." + c;
  };
  if (std::string parts =
          joined("nvidia.com/cuda.driver-version.major", "nvidia.com/cuda.driver-version.minor",
                 "nvidia.com/cuda.driver-version.revision");
      !parts.empty()) {
    return parts;
  }
  return joined("nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor", "nvidia.com/cuda.driver.rev");
}

CurrentNodes parse_current_nodes(const std::string& text, const std::string& origin,
                                 const JsonLimits& limits) {
  const json doc = parse_json_text(text, origin, limits);
  CurrentNodes out;
  auto add = [&](const json& node, const std::string& where) {
    CurrentNode s = current_node(node, origin, where);
    out[s.name] = std::move(s);
  };
  // `kubectl get nodes -o json` says "kind": "List", the API server's own answer "NodeList".
  if (doc.is_object() && doc.contains("items")) {
    const json items = doc.value("items", json::array());
    if (!items.is_array()) throw InputError(origin, "$.items", "expected a list of Nodes");
    for (std::size_t i = 0; i < items.size(); ++i) add(items[i], "$.items[" + std::to_string(i) + "]");
    return out;
  }
  add(doc, "$");
  return out;
}

CurrentNodes read_current_nodes(const std::string& path) {
  return parse_current_nodes(read_text_file(path, JsonLimits{}.max_bytes), path);
}

std::vector<std::string> stale_reasons(const RunRecord& r, const CurrentNode& node) {
  std::vector<std::string> out;
  if (!node.boot_id.empty() && r.node.boot_id != node.boot_id) {
    out.push_back(
        r.node.boot_id.empty()
            ? fmt::format("the record has no boot id; the node's boot is {}: it may be from an earlier boot",
                          short_id(node.boot_id))
            : fmt::format("taken before the node's current boot (boot {}, the node's is {})",
                          short_id(r.node.boot_id), short_id(node.boot_id)));
  }
  const std::string kubelet =
      r.node.stack && r.node.stack->k8s_kubelet_version.value ? *r.node.stack->k8s_kubelet_version.value : "";
  for (const std::string& d : {differs("kubelet", kubelet, node.kubelet_version),
                               differs("kernel", r.node.kernel, node.kernel_version),
                               differs("driver", r.node.driver_version, node.driver_version)}) {
    if (!d.empty()) out.push_back(d);
  }
  return out;
}

namespace {

// The record's time for --max-age: ended_at, else started_at; nullopt when neither parses.
std::optional<std::int64_t> record_time_ms(const RunRecord& r) {
  if (auto t = parse_rfc3339_ms(r.ended_at)) return t;
  return parse_rfc3339_ms(r.started_at);
}

}  // namespace

std::string format_age(double seconds) {
  if (seconds >= 2 * 86400) return fmt::format("{:.0f} d", seconds / 86400);
  if (seconds >= 2 * 3600) return fmt::format("{:.0f} h", seconds / 3600);
  if (seconds >= 2 * 60) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.0f} s", seconds);
}

std::optional<std::string> age_problem(const RunRecord& r, double max_age_s, std::int64_t now) {
  const std::optional<std::int64_t> t = record_time_ms(r);
  const std::string limit = fmt::format("--max-age {}", format_age(max_age_s));
  if (!t) return fmt::format("the record has no end or start time: its age cannot be judged ({})", limit);
  const std::string when = !r.ended_at.empty() && parse_rfc3339_ms(r.ended_at) ? r.ended_at : r.started_at;
  if (*t > now + kFutureSkewMs) {
    return fmt::format(
        "the record is dated {} in the future ({}): the node's clock is off, its age cannot be judged ({})",
        format_age(static_cast<double>(*t - now) / 1000), when, limit);
  }
  const double age_s = static_cast<double>(now - *t) / 1000;
  if (age_s <= max_age_s) return std::nullopt;
  return fmt::format("last qualified {} ago ({}), more than {} allows", format_age(age_s), when, limit);
}

std::int64_t now_ms() {
  if (const char* env = std::getenv("GPUQUAL_NOW"); env != nullptr && *env != '\0') {
    if (auto t = parse_rfc3339_ms(env)) return *t;
    throw InputError("GPUQUAL_NOW", "",
                     fmt::format("\"{}\" is not an RFC 3339 time (2026-11-30T12:00:00Z)", env));
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> freshness_problems(const RunRecord& r, const std::string& node_name,
                                            const Freshness& f) {
  std::vector<std::string> out;
  if (f.max_age_s) {
    if (auto p = age_problem(r, *f.max_age_s, f.now_ms)) out.push_back(std::move(*p));
  }
  if (f.nodes) {
    auto it = f.nodes->find(node_name);
    if (it == f.nodes->end()) {
      out.push_back(fmt::format(
          "node {} is not among the Node objects given: whether the record is current cannot be told",
          node_name));
    } else {
      for (auto& s : stale_reasons(r, it->second)) out.push_back("stale: " + s);
    }
  }
  return out;
}

void withhold_qualification(Verdict& v, const std::vector<std::string>& reasons) {
  if (reasons.empty()) return;
  if (v.outcome != Outcome::pass && v.outcome != Outcome::warn) {
    v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
    return;
  }
  const std::string was(to_string(v.outcome));
  v.outcome = Outcome::inconclusive;
  v.exit_code = exit_code_for(v.outcome, v.strict);
  v.reasons.insert(v.reasons.begin(), reasons.begin(), reasons.end());
  // "gpuqual: PASS node-a h200: 42 of 42 metrics passed" → "gpuqual: INCONCLUSIVE node-a h200:
  // last qualified 31 d ago ...; the record alone: pass, 42 of 42 metrics passed".
  const std::string head = "gpuqual: " + to_upper(was);
  std::string rest = v.summary.rfind(head, 0) == 0 ? v.summary.substr(head.size()) : " " + v.summary;
  const auto colon = rest.find(": ");
  const std::string who = colon == std::string::npos ? "" : rest.substr(0, colon);
  const std::string what = colon == std::string::npos ? rest : rest.substr(colon + 2);
  v.summary =
      fmt::format("gpuqual: INCONCLUSIVE{}: {}; the record alone: {}, {}", who, reasons.front(), was, what);
}

}  // namespace gpuqual
