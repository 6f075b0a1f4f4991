#include "core/verdict/node_condition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <initializer_list>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/base/utc_time.hpp"

namespace gpuqual {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

bool status_in(const nlohmann::json& row, std::initializer_list<const char*> statuses) {
  const auto s = row.find("status");
  if (s == row.end() || !s->is_string()) return false;
  const std::string& status = s->get_ref<const std::string&>();
  return std::any_of(statuses.begin(), statuses.end(), [&](const char* x) { return status == x; });
}

const std::string* string_at(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  const auto it = o.find(key);
  return it != o.end() && it->is_string() && !it->get_ref<const std::string&>().empty()
             ? &it->get_ref<const std::string&>()
             : nullptr;
}

// The rows of one of the verdict's arrays, nothing when it has none (or not an array).
const nlohmann::json& rows(const nlohmann::json& verdict, const char* key) {
  static const nlohmann::json none = nlohmann::json::array();
  const auto it = verdict.find(key);
  return it != verdict.end() && it->is_array() ? *it : none;
}

// What decided the verdict: the first finding, then metric, then check whose status is one of
// `statuses` (the verdict's own order: docs/output-formats.md).
std::optional<std::string> deciding(const nlohmann::json& verdict,
                                    std::initializer_list<const char*> statuses) {
  for (const auto& f : rows(verdict, "findings")) {
    if (!f.is_object() || !status_in(f, statuses)) continue;
    const auto finding = f.find("finding");
    if (finding == f.end()) continue;
    if (const std::string* code = string_at(*finding, "code")) return *code;
  }
  for (const auto& m : rows(verdict, "metrics")) {
    if (!m.is_object() || !status_in(m, statuses)) continue;
    if (const std::string* metric = string_at(m, "metric")) return *metric;
  }
  for (const auto& c : rows(verdict, "checks")) {
    if (!c.is_object() || !status_in(c, statuses)) continue;
    if (const std::string* check = string_at(c, "check"))
      return *check + " " + c["status"].get<std::string>();
  }
  return std::nullopt;
}

std::string failed_reason(const nlohmann::json& verdict) {
  return camel_case_reason(deciding(verdict, {"fail"}).value_or("QualificationFailed"));
}

std::string unknown_reason(const nlohmann::json& verdict) {
  auto d = deciding(verdict, {"error", "inconclusive"});
  if (!d) d = deciding(verdict, {"skip"});
  return camel_case_reason(d.value_or("QualificationInconclusive"));
}

const nlohmann::json* member(const nlohmann::json& o, const char* key, nlohmann::json::value_t type,
                             const std::string& file, const std::string& path) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return nullptr;
  if (it->type() != type)
    throw InputError(file, path + "." + key,
                     fmt::format("is a {}, not a {}", it->type_name(), nlohmann::json(type).type_name()));
  return &*it;
}

std::string string_member(const nlohmann::json& o, const char* key, const std::string& file,
                          const std::string& path) {
  const nlohmann::json* s = member(o, key, nlohmann::json::value_t::string, file, path);
  return s ? s->get<std::string>() : std::string();
}

std::optional<GpuCondition> gpu_condition(const nlohmann::json& node, const std::string& file) {
  const nlohmann::json* status = member(node, "status", nlohmann::json::value_t::object, file, "$");
  if (!status) return std::nullopt;
  const nlohmann::json* list =
      member(*status, "conditions", nlohmann::json::value_t::array, file, "$.status");
  if (!list) return std::nullopt;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& c = (*list)[i];
    const std::string path = fmt::format("$.status.conditions[{}]", i);
    if (!c.is_object()) throw InputError(file, path, "is not an object");
    if (string_member(c, "type", file, path) != kGpuQualifiedType) continue;
    return GpuCondition{string_member(c, "status", file, path), string_member(c, "reason", file, path),
                        string_member(c, "message", file, path),
                        string_member(c, "lastHeartbeatTime", file, path),
                        string_member(c, "lastTransitionTime", file, path)};
  }
  return std::nullopt;
}

const nlohmann::json* count_annotation(const nlohmann::json& node, const std::string& file) {
  const nlohmann::json* meta = member(node, "metadata", nlohmann::json::value_t::object, file, "$");
  const nlohmann::json* annotations =
      meta ? member(*meta, "annotations", nlohmann::json::value_t::object, file, "$.metadata") : nullptr;
  if (!annotations) return nullptr;
  const auto it = annotations->find(kConsecutivePassesAnnotation);
  return it == annotations->end() ? nullptr : &*it;
}

// The passes counted with `previous`, from the annotation's value: {"passes": N, "heartbeat":
// the lastHeartbeatTime of the condition written with it}. Anything else counts nothing.
std::size_t counted_passes(const nlohmann::json& value, const GpuCondition& previous,
                           std::vector<std::string>& warnings) {
  const std::string where = fmt::format("annotation {}", kConsecutivePassesAnnotation);
  nlohmann::json j;
  try {
    j = value.is_string() ? parse_json_text(value.get<std::string>(), where) : nlohmann::json();
  } catch (const InputError& e) {
    warnings.push_back(fmt::format("{}: {}; no passes counted", where, e.problem()));
    return 0;
  }
  const auto passes = j.is_object() ? j.find("passes") : j.end();
  const std::string* heartbeat = string_at(j, "heartbeat");
  if (passes == j.end() || !passes->is_number_unsigned() || heartbeat == nullptr) {
    warnings.push_back(where + ": not {\"passes\": N, \"heartbeat\": TIME}; no passes counted");
    return 0;
  }
  if (*heartbeat != previous.last_heartbeat) {
    warnings.push_back(
        fmt::format("{}: counted at {}, but the condition was written at {} since; no passes counted", where,
                    *heartbeat, previous.last_heartbeat));
    return 0;
  }
  return passes->get<std::size_t>();
}

}  // namespace

std::string camel_case_reason(std::string_view code) {
  std::string out;
  bool word_start = true;
  for (char c : code) {
    if (!is_alnum(c)) {
      word_start = true;
      continue;
    }
    out += word_start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    word_start = false;
  }
  // A condition reason starts with a letter (docs/kubernetes.md): "2bit" -> "Code2bit".
  return !out.empty() && is_alpha(out.front()) ? out : "Code" + out;
}

bool is_camel_case(std::string_view reason) {
  return !reason.empty() && is_alpha(reason.front()) && std::all_of(reason.begin(), reason.end(), is_alnum);
}

std::optional<ConditionVerdict> condition_from_exit(int exit_code, const std::string& summary,
                                                    const nlohmann::json* verdict) {
  if (exit_code == 3) return std::nullopt;
  static const nlohmann::json no_verdict = nlohmann::json::object();
  const nlohmann::json& v = verdict != nullptr && verdict->is_object() ? *verdict : no_verdict;
  ConditionVerdict c;
  if (exit_code == 0) {
    c = {"True", "Qualified", ""};
  } else if (exit_code == 1) {
    c = {"False", failed_reason(v), ""};
  } else {
    c = {"Unknown", unknown_reason(v), ""};
  }
  const std::string* verdict_summary = string_at(v, "summary");
  c.message = !summary.empty()  ? summary
              : verdict_summary ? *verdict_summary
                                : fmt::format("gpuqual exited {}", exit_code);
  // The verdict's action first (docs/actions.md), where a long message is cut last.
  if (const std::string* action = string_at(v, "action"); action && *action != "none")
    c.message = fmt::format("action: {}; {}", *action, c.message);
  return c;
}

ConditionVerdict unknown_condition(const std::string& reason, const std::string& message) {
  if (!is_camel_case(reason))
    throw InputError("--unknown", "", fmt::format("reason {} is not CamelCase", reason));
  if (message.empty()) throw InputError("--unknown", "", "the message is empty");
  return {"Unknown", reason, message};
}

NodeConditionState node_condition_state(const nlohmann::json& node, const std::string& file) {
  if (!node.is_object()) throw InputError(file, "$", "the Node is not a JSON object");
  NodeConditionState s;
  s.previous = gpu_condition(node, file);
  const nlohmann::json* count = count_annotation(node, file);
  if (count != nullptr && s.previous) s.passes_in_a_row = counted_passes(*count, *s.previous, s.warnings);
  return s;
}

ConditionWrite next_condition(const ConditionVerdict& v, const NodeConditionState& node,
                              const std::string& now, std::size_t consecutive) {
  const bool pass = v.status == "True";
  const std::size_t passes = pass ? node.passes_in_a_row + 1 : 0;
  const std::optional<GpuCondition>& prev = node.previous;
  ConditionWrite w;
  w.passes_in_a_row = passes;
  w.condition = {v.status, v.reason, v.message, now, now};
  // A node that has no condition yet qualifies on its first pass; one that is not True waits.
  if (pass && prev && prev->status != "True" && passes < consecutive) {
    w.condition.status = prev->status;
    w.condition.reason = "AwaitingConsecutivePasses";
    w.condition.message =
        fmt::format("{} of {} passing runs in a row since the last non-passing run (--consecutive {}): {}",
                    passes, consecutive, consecutive, v.message);
  }
  // A remediation controller waits on lastTransitionTime: it moves only with the status.
  if (prev && prev->status == w.condition.status && !prev->last_transition.empty())
    w.condition.last_transition = prev->last_transition;
  return w;
}

nlohmann::ordered_json condition_json(const GpuCondition& c) {
  return {{"type", kGpuQualifiedType},
          {"status", c.status},
          {"reason", c.reason},
          {"message", c.message},
          {"lastHeartbeatTime", c.last_heartbeat},
          {"lastTransitionTime", c.last_transition}};
}

nlohmann::ordered_json condition_patch(const ConditionWrite& w) {
  const nlohmann::ordered_json count = {{"passes", w.passes_in_a_row},
                                        {"heartbeat", w.condition.last_heartbeat}};
  nlohmann::ordered_json patch;
  patch["metadata"]["annotations"][kConsecutivePassesAnnotation] = count.dump();
  patch["status"]["conditions"] = nlohmann::ordered_json::array({condition_json(w.condition)});
  return patch;
}

void add_valid_until(nlohmann::ordered_json& patch, const ConditionWrite& w, double max_age_s) {
  nlohmann::ordered_json label = nullptr, annotation = nullptr;  // null removes them (merge patch)
  if (w.condition.status == "True") {
    const std::optional<std::int64_t> now_ms = parse_rfc3339_ms(w.condition.last_heartbeat);
    if (!now_ms)
      throw InputError("--now", "", fmt::format("{} is not an RFC 3339 time", w.condition.last_heartbeat));
    const auto until = std::chrono::system_clock::time_point(std::chrono::milliseconds(*now_ms)) +
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(
                           std::chrono::duration<double>(max_age_s));
    annotation = utc_rfc3339(until);
    label = utc_compact(until);
  }
  patch["metadata"]["labels"][kValidUntilKey] = label;
  patch["metadata"]["annotations"][kValidUntilKey] = annotation;
}

std::optional<std::int64_t> parse_valid_until_label(std::string_view label) {
  // utc_compact's form: YYYYMMDDTHHMMSSZ, back to the RFC 3339 the strict reader checks.
  if (label.size() != 16 || label[8] != 'T' || label[15] != 'Z') return std::nullopt;
  const std::string rfc =
      fmt::format("{}-{}-{}T{}:{}:{}Z", label.substr(0, 4), label.substr(4, 2), label.substr(6, 2),
                  label.substr(9, 2), label.substr(11, 2), label.substr(13, 2));
  if (!is_rfc3339_text(rfc)) return std::nullopt;
  return parse_rfc3339_ms(rfc);
}

}  // namespace gpuqual
