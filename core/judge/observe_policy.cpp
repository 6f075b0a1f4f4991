#include "core/judge/observe_policy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/base/yaml_document.hpp"
#include "core/base/yaml_tree.hpp"
#include "core/judge/observe_series.hpp"
#include "core/verdict/noise_model_options.hpp"

namespace gpuqual::observe {

namespace {

double read_duration(JsonObject& o, const std::string& key, double fallback) {
  if (!o.has(key)) return fallback;
  const std::string text = o.str(key);
  const std::optional<double> s = parse_duration_s(text);
  if (!s) o.fail(key, fmt::format("\"{}\" is not a duration (like 15s, 90m, 2h)", text));
  return *s;
}

// 2, "2" or "2%" (percent) → 0.02, as diff's --allowed-drop reads it.
double read_percent(JsonObject& o, const nlohmann::json& j, const std::string& key) {
  const nlohmann::json& v = j.at(key);
  const std::string text = v.is_number() ? fmt::format("{}", o.number(key)) : o.str(key);
  const std::optional<double> f = parse_drop_percent(text);
  if (!f) o.fail(key, fmt::format("\"{}\" is not a percentage in [0, 100)", text));
  return *f;
}

WorkloadPolicy workload_from_json(const nlohmann::json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  WorkloadPolicy w;
  w.name = o.nonempty_str("name");
  w.query = o.nonempty_str("query");
  if (o.has("node_label")) w.node_label = o.nonempty_str("node_label");
  const std::string dir = o.str("direction");
  if (dir == "lower")
    w.direction = Direction::lower;
  else if (dir == "higher")
    w.direction = Direction::higher;
  else
    o.fail("direction", fmt::format("\"{}\" is not lower or higher (which way is better)", dir));
  if (o.has("allowed_change")) {
    w.allowed_change = read_percent(o, j, "allowed_change");
  }
  if (o.has("warn_change")) {
    w.warn_change = read_percent(o, j, "warn_change");
    if (*w.warn_change > w.allowed_change) o.fail("warn_change", "is larger than allowed_change");
  }
  w.optional = o.opt_boolean("optional").value_or(false);
  o.finish();
  return w;
}

void read_load(ObservePolicy& p, const nlohmann::json& j, const std::string& file) {
  JsonObject o(j, file, "$.load");
  p.min_utilization_pct = o.opt_number("min_utilization", 0, 100).value_or(p.min_utilization_pct);
  p.min_busy_fraction = o.opt_number("min_busy_gpus", 0, 1).value_or(p.min_busy_fraction);
  o.finish();
}

void read_completeness(ObservePolicy& p, const nlohmann::json& j, const std::string& file) {
  JsonObject o(j, file, "$.completeness");
  p.max_gap_s = read_duration(o, "max_gap", p.max_gap_s);
  p.min_coverage = o.opt_number("min_coverage", 0, 1).value_or(p.min_coverage);
  o.finish();
}

void read_clock_events(ObservePolicy& p, const nlohmann::json& j, const std::string& file) {
  JsonObject o(j, file, "$.clock_events");
  if (o.has("unit")) {
    const std::string unit = o.str("unit");
    if (unit == "ns")
      p.violation_unit_s = 1e-9;
    else if (unit == "us")
      p.violation_unit_s = 1e-6;
    else
      o.fail("unit", fmt::format("\"{}\" is not ns or us", unit));
  }
  p.allowed_throttle_fraction = o.opt_number("allowed_fraction", 0, 1).value_or(p.allowed_throttle_fraction);
  o.finish();
}

void read_comparison(ObservePolicy& p, const nlohmann::json& j, const std::string& file) {
  JsonObject o(j, file, "$.comparison");
  p.blocks = static_cast<int>(o.opt_integer("blocks", 1, 1000).value_or(p.blocks));
  p.confidence = o.opt_number("confidence", 0.5, 0.9999).value_or(p.confidence);
  p.split = static_cast<int>(o.opt_integer("split", 1, 100).value_or(p.split));
  p.consecutive = static_cast<int>(o.opt_integer("consecutive", 1, 100).value_or(p.consecutive));
  if (p.consecutive > p.split) o.fail("consecutive", fmt::format("is more than split ({})", p.split));
  o.finish();
}

void read_xids(ObservePolicy& p, const nlohmann::json& j, const std::string& file) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = "$.xids." + it.key();
    int code = -1;
    auto [ptr, ec] = std::from_chars(it.key().data(), it.key().data() + it.key().size(), code);
    if (ec != std::errc() || ptr != it.key().data() + it.key().size() || code <= 0 || code > 1000)
      throw InputError(file, path, "not an Xid code (1-1000)");
    const std::optional<Severity> s = it->is_string() ? parse_severity(it->get<std::string>()) : std::nullopt;
    if (!s) throw InputError(file, path, "expected fail, warn or info");
    p.xid_overrides[code] = *s;
  }
}

// `optional_series`: fault fields the exporter may not serve (field::kFaultFields; the
// clock-event reasons also by their pre-DCGM-3.3 name).
void read_optional_series(ObservePolicy& p, JsonObject& o, const std::string& file) {
  if (!o.has("optional_series")) return;
  const std::vector<std::string> names = o.string_array("optional_series");
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string name = names[i];
    if (name == field::kClocksEventReasonsOld) name = field::kClocksEventReasons;
    const bool known = std::any_of(std::begin(field::kFaultFields), std::end(field::kFaultFields),
                                   [&](const char* f) { return name == f; });
    if (!known)
      throw InputError(
          file, JsonObject::index_path("$.optional_series", i),
          fmt::format("\"{}\" is not a field observe judges (one of {})", names[i],
                      fmt::join(std::begin(field::kFaultFields), std::end(field::kFaultFields), ", ")));
    p.optional_series.insert(name);
  }
}

void read_workloads(ObservePolicy& p, JsonObject& o, const std::string& file) {
  const nlohmann::json& list = o.array("workloads");
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = JsonObject::index_path("$.workloads", i);
    if (!list[i].is_object()) throw InputError(file, path, "expected a mapping");
    WorkloadPolicy w = workload_from_json(list[i], file, path);
    if (!names.insert(w.name).second) throw InputError(file, path + ".name", "named twice: " + w.name);
    p.workloads.push_back(std::move(w));
  }
}

ObservePolicy policy_from_json(const nlohmann::json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  ObservePolicy p;
  p.schema = read_schema(o, kObservePolicySchema);
  if (o.has("node_label")) p.node_label = o.nonempty_str("node_label");
  if (o.has("window")) {
    p.window = o.str("window");
    if (!parse_duration_s(p.window)) o.fail("window", fmt::format("\"{}\" is not a duration", p.window));
  }
  p.scrape_interval_s = read_duration(o, "scrape_interval", p.scrape_interval_s);
  if (const nlohmann::json* j = o.opt_object("load")) read_load(p, *j, file);
  if (const nlohmann::json* j = o.opt_object("completeness")) read_completeness(p, *j, file);
  if (const nlohmann::json* j = o.opt_object("clock_events")) read_clock_events(p, *j, file);
  if (const nlohmann::json* j = o.opt_object("comparison")) read_comparison(p, *j, file);
  if (const nlohmann::json* j = o.opt_object("xids")) read_xids(p, *j, file);
  read_optional_series(p, o, file);
  read_workloads(p, o, file);
  o.finish();
  p.origin = file;
  return p;
}

}  // namespace

std::optional<double> parse_duration_s(const std::string& text) {
  double total = 0;
  std::size_t i = 0;
  if (text.empty()) return std::nullopt;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    if (j == i || j == text.size()) return std::nullopt;
    double n = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + j, n);
    if (ec != std::errc() || ptr != text.data() + j) return std::nullopt;
    const char unit = text[j];
    const double scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 0;
    if (scale == 0) return std::nullopt;
    total += n * scale;
    i = j + 1;
  }
  if (!(total > 0)) return std::nullopt;
  return total;
}

ObservePolicy parse_observe_policy_yaml(const std::string& text, const std::string& origin) {
  return from_yaml_document(text, origin, policy_from_json);
}

ObservePolicy load_observe_policy(const std::string& path) {
  return parse_observe_policy_yaml(read_text_file(path, YamlLimits{}.max_bytes), path);
}

}  // namespace gpuqual::observe
