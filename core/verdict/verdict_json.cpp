#include "core/verdict/verdict_json.hpp"

#include <fmt/format.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "core/base/json_fields.hpp"
#include "core/record/record_json.hpp"

namespace gpuqual {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

json row_json(const MetricRow& m) {
  json j{{"check", m.check},
         {"metric", m.metric},
         {"gpu", opt(m.gpu)},
         {"gpu_uuid", m.gpu_uuid},
         {"unit", m.unit},
         {"direction", to_string(m.direction)},
         {"expected", opt(m.expected)},
         {"observed", opt(m.observed)},
         {"delta_pct", opt(m.delta_pct)},
         {"allowed_drop_pct", m.allowed_drop_pct},
         {"status", to_string(m.status)},
         {"reason", m.reason}};
  if (!m.mig_device.empty()) j["mig_device"] = m.mig_device;  // a per-slice metric (docs/mig.md)
  return j;
}

Status read_status(JsonObject& o, const char* key) {
  const std::string s = o.str(key);
  const auto st = parse_status(s);
  if (!st) o.fail(key, fmt::format("unknown status \"{}\"", s));
  return *st;
}

std::optional<int> read_gpu(JsonObject& o) {
  if (auto g = o.opt_integer("gpu", 0, 1023)) return static_cast<int>(*g);
  return std::nullopt;
}

MetricRow metric_row_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  MetricRow m;
  m.check = o.str("check");
  m.metric = o.nonempty_str("metric");
  m.gpu = read_gpu(o);
  m.gpu_uuid = o.str("gpu_uuid");
  m.unit = o.str("unit");
  const std::string dir = o.str("direction");
  const auto d = parse_direction(dir);
  if (!d) o.fail("direction", fmt::format("unknown direction \"{}\"", dir));
  m.direction = *d;
  m.expected = o.opt_number("expected");
  m.observed = o.opt_number("observed");
  m.delta_pct = o.opt_number("delta_pct");
  m.allowed_drop_pct = o.number("allowed_drop_pct", 0);
  m.status = read_status(o, "status");
  m.reason = o.str("reason");
  m.mig_device = o.str_or("mig_device", "");
  o.finish();
  return m;
}

template <class T, class F>
std::vector<T> read_array(JsonObject& o, const char* key, F&& read_one) {
  std::vector<T> out;
  const json& arr = o.array(key);
  const std::string p = o.child_path(key);
  for (std::size_t i = 0; i < arr.size(); ++i) out.push_back(read_one(arr[i], JsonObject::index_path(p, i)));
  return out;
}

}  // namespace

json to_json(const Verdict& v) {
  json metrics = json::array();
  for (const auto& m : v.metrics) metrics.push_back(row_json(m));
  json findings = json::array();
  for (const auto& f : v.findings) {
    findings.push_back({{"check", f.check},
                        {"finding", to_json(f.finding)},
                        {"status", to_string(f.status)},
                        {"reason", f.reason},
                        {"node_action", to_string(f.node_action)}});
  }
  json checks = json::array();
  for (const auto& c : v.checks) {
    checks.push_back({{"check", c.check},
                      {"gpu", opt(c.gpu)},
                      {"status", to_string(c.status)},
                      {"reason", c.reason},
                      {"duration_s", c.duration_s}});
    if (!c.mig_device.empty()) checks.back()["mig_device"] = c.mig_device;  // a slice's row (docs/mig.md)
  }
  json per_gpu = json::array();
  for (const auto& [gpu, status] : v.per_gpu)
    per_gpu.push_back({{"gpu", gpu}, {"status", to_string(status)}});
  json nodes = json::array();
  for (const auto& n : v.nodes) nodes.push_back(to_json(n));
  json out{{"schema", v.schema},
           {"kind", v.kind},
           {"outcome", to_string(v.outcome)},
           {"strict", v.strict},
           {"exit_code", v.exit_code},
           {"summary", v.summary},
           {"action", to_string(v.action)},
           {"reasons", v.reasons},
           {"hostname", v.hostname},
           {"run_id", v.run_id},
           {"hardware_class", v.hardware_class},
           {"driver_version", v.driver_version},
           {"cuda_driver_version", v.cuda_driver_version},
           {"baseline", v.baseline},
           {"metrics", metrics},
           {"findings", findings},
           {"checks", checks},
           {"per_gpu", per_gpu},
           {"stack_changes", v.stack_changes},
           {"nodes", nodes}};
  // Added within v1: written only when there is one, so older verdicts read unchanged.
  if (!v.stack.empty()) {
    json stack = json::array();
    for (const auto& c : v.stack) {
      json cj{{"component", c.name}, {"value", c.fact.value ? json(*c.fact.value) : json(nullptr)}};
      if (!c.fact.known()) cj["reason"] = c.fact.reason;
      stack.push_back(std::move(cj));
    }
    out["stack"] = std::move(stack);
  }
  return out;
}

namespace {

// Added within v1 (docs/actions.md): a verdict written before it reads as none.
NodeAction read_node_action(JsonObject& o, const std::string& key) {
  const std::string text = o.str_or(key, "none");
  const auto a = parse_node_action(text);
  if (!a) o.fail(key, fmt::format("unknown action \"{}\" (expected {})", text, node_action_names()));
  return *a;
}

// One row of a verdict's findings, checks and stack, each checked as the verdict itself is.
FindingRow finding_row_from_json(const json& e, const std::string& file, const std::string& p) {
  JsonObject f(e, file, p);
  FindingRow row;
  row.check = f.str("check");
  row.finding = finding_from_json(f.object("finding"), file, f.child_path("finding"));
  row.status = read_status(f, "status");
  row.reason = f.str("reason");
  row.node_action = read_node_action(f, "node_action");
  f.finish();
  return row;
}

CheckRow check_row_from_json(const json& e, const std::string& file, const std::string& p) {
  JsonObject c(e, file, p);
  CheckRow row;
  row.check = c.nonempty_str("check");
  row.gpu = read_gpu(c);
  row.status = read_status(c, "status");
  row.reason = c.str("reason");
  row.duration_s = c.number("duration_s", 0);
  row.mig_device = c.str_or("mig_device", "");
  c.finish();
  return row;
}

StackComponent stack_component_from_json(const json& e, const std::string& file, const std::string& p) {
  JsonObject c(e, file, p);
  StackComponent sc;
  sc.name = c.nonempty_str("component");
  if (c.has("value")) {
    sc.fact = StackFact::read(c.str("value"));
    if (c.has("reason")) c.fail("reason", "a reason belongs to a component that was not read");
  } else {
    sc.fact = StackFact::unread(c.nonempty_str("reason"));
  }
  c.str_or("value", "");
  c.finish();
  return sc;
}

}  // namespace

Verdict verdict_from_json(const json& j, const std::string& file) {
  // Called recursively for gate's per-node verdicts; each level is checked the same way.
  std::function<Verdict(const json&, const std::string&)> read = [&](const json& jj,
                                                                     const std::string& path) {
    JsonObject o(jj, file, path);
    Verdict v;
    v.schema = o.str("schema");
    if (v.schema != kVerdictSchema) {
      o.fail("schema",
             fmt::format("unsupported schema \"{}\" (this gpuqual reads {})", v.schema, kVerdictSchema));
    }
    v.kind = o.str("kind");
    if (v.kind != "compare" && v.kind != "diff" && v.kind != "gate" && v.kind != "observe")
      o.fail("kind", fmt::format("unknown kind \"{}\"", v.kind));
    const std::string outcome = o.str("outcome");
    const auto oc = parse_outcome(outcome);
    if (!oc) o.fail("outcome", fmt::format("unknown outcome \"{}\"", outcome));
    v.outcome = *oc;
    v.strict = o.boolean("strict");
    v.exit_code = static_cast<int>(o.integer("exit_code", 0, 3));
    v.summary = o.str("summary");
    v.action = read_node_action(o, "action");
    v.reasons = o.string_array("reasons");
    v.hostname = o.str("hostname");
    v.run_id = o.str("run_id");
    v.hardware_class = o.str("hardware_class");
    v.driver_version = o.str("driver_version");
    v.cuda_driver_version = o.str("cuda_driver_version");
    v.baseline = o.str("baseline");
    v.metrics = read_array<MetricRow>(
        o, "metrics", [&](const json& e, const std::string& p) { return metric_row_from_json(e, file, p); });
    v.findings = read_array<FindingRow>(o, "findings", [&](const json& e, const std::string& p) {
      return finding_row_from_json(e, file, p);
    });
    v.checks = read_array<CheckRow>(
        o, "checks", [&](const json& e, const std::string& p) { return check_row_from_json(e, file, p); });
    const json& per_gpu = o.array("per_gpu");
    for (std::size_t i = 0; i < per_gpu.size(); ++i) {
      JsonObject g(per_gpu[i], file, JsonObject::index_path(o.child_path("per_gpu"), i));
      const int gpu = static_cast<int>(g.integer("gpu", 0, 1023));
      if (v.per_gpu.count(gpu)) g.fail("gpu", fmt::format("duplicate GPU {}", gpu));
      v.per_gpu[gpu] = read_status(g, "status");
      g.finish();
    }
    v.stack_changes = o.string_array("stack_changes");
    if (o.opt_array("stack")) {
      v.stack = read_array<StackComponent>(o, "stack", [&](const json& e, const std::string& p) {
        return stack_component_from_json(e, file, p);
      });
    }
    v.nodes =
        read_array<Verdict>(o, "nodes", [&](const json& e, const std::string& p) { return read(e, p); });
    o.finish();
    return v;
  };
  return read(j, "$");
}

}  // namespace gpuqual
