// Strict loader of `gpuqual.baseline/v1` YAML. The YAML is turned into a JSON tree that keeps
// the line of every key (baseline_yaml_tree.hpp), then read with the same JsonObject accessors
// as run records, so a typo, a missing key or an impossible tolerance is one line naming the
// file, the line, the key path and the problem.
#include "core/baseline/baseline.hpp"

#include <fmt/format.h>

#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/base/units.hpp"
#include "core/base/yaml_document.hpp"
#include "core/base/yaml_tree.hpp"
#include "core/record/mig_class.hpp"

namespace gpuqual {

using nlohmann::json;

namespace {

bool is_slug(const std::string& s) {
  if (is_mig_class_slug(s)) return true;  // "<parent>-mig-1g.10gb" (docs/mig.md)
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

bool has_space(const std::string& s) { return s.find_first_of(" \t\r\n") != std::string::npos; }

// A finding code pattern: an exact code, or a prefix ending in ".*" (`xid.*`). A '*' anywhere
// else would look like a glob that the matcher does not implement.
bool valid_code_pattern(const std::string& code) {
  const auto star = code.find('*');
  if (star == std::string::npos) return true;
  return code.size() >= 3 && star == code.size() - 1 && code[code.size() - 2] == '.';
}

Provenance provenance_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  Provenance p;
  p.source = o.nonempty_str("source");
  p.runs = static_cast<int>(o.opt_integer("runs", 0, 1000000).value_or(0));
  if (o.opt_array("nodes")) p.nodes = o.string_array("nodes");
  if (const json* stack = o.opt_object("stack")) {
    for (auto it = stack->begin(); it != stack->end(); ++it) {
      if (!it->is_string()) {
        o.fail("stack." + it.key(),
               fmt::format("expected a string, found {} (quote versions: \"12.8\")", it->type_name()));
      }
      p.stack[it.key()] = it->get<std::string>();
    }
  }
  p.created = o.str_or("created", "");
  p.date_range = o.str_or("date_range", "");
  p.notes = o.str_or("notes", "");
  o.finish();
  return p;
}

MetricExpectation expectation_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  MetricExpectation m;
  m.name = o.nonempty_str("name");
  if (has_space(m.name)) o.fail("name", fmt::format("metric name \"{}\" contains whitespace", m.name));
  m.unit = o.str("unit");
  if (!is_known_unit(m.unit)) o.fail("unit", fmt::format("unknown unit \"{}\"", m.unit));
  const std::string dir = o.str("direction");
  const auto d = parse_direction(dir);
  if (!d) o.fail("direction", fmt::format("unknown direction \"{}\" (expected higher or lower)", dir));
  m.direction = *d;
  m.expected = o.number("expected");
  // Drops are relative to `expected`, so it must be a positive magnitude.
  if (m.expected <= 0)
    o.fail("expected", fmt::format("expected value must be above 0, found {}", m.expected));
  m.tolerance = o.number("tolerance");
  if (m.tolerance < 0 || m.tolerance >= 1) {
    o.fail("tolerance", fmt::format("must be at least 0 and below 1 (a relative drop: 0.05 = 5 %), found {}",
                                    m.tolerance));
  }
  m.warn_tolerance = o.opt_number("warn_tolerance");
  if (m.warn_tolerance && (*m.warn_tolerance < 0 || *m.warn_tolerance >= m.tolerance)) {
    o.fail("warn_tolerance", fmt::format("must be at least 0 and below tolerance {}, found {}", m.tolerance,
                                         *m.warn_tolerance));
  }
  m.noise_cv = o.opt_number("noise_cv");
  if (m.noise_cv && (*m.noise_cv < 0 || *m.noise_cv >= 1)) {
    o.fail("noise_cv",
           fmt::format("must be at least 0 and below 1 (0.01 = 1 % run-to-run), found {}", *m.noise_cv));
  }
  m.per_gpu = o.opt_boolean("per_gpu").value_or(true);
  m.required = o.opt_boolean("required").value_or(true);
  o.finish();
  return m;
}

FindingLimit limit_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  FindingLimit f;
  f.code = o.nonempty_str("code");
  if (has_space(f.code) || !valid_code_pattern(f.code)) {
    o.fail("code", fmt::format("\"{}\" is not a finding code or a prefix ending in \".*\"", f.code));
  }
  f.max_value = o.opt_number("max_value");
  if (f.max_value && *f.max_value < 0)
    o.fail("max_value", fmt::format("must not be negative, found {}", *f.max_value));
  const std::string st = o.str_or("status", "fail");
  const auto s = parse_status(st);
  if (!s || (*s != Status::fail && *s != Status::warn)) {
    o.fail("status", fmt::format("unknown limit status \"{}\" (expected fail or warn)", st));
  }
  f.status = *s;
  f.action = o.str_or("action", "");
  o.finish();
  return f;
}

// `gpu_count: N` (the GPUs a node of the class has) or `gpu_count: node` (the node's own sources
// say: labels, capacity, the PCI bus; docs/baselines.md, "What a class must measure").
void read_gpu_count(JsonObject& o, const json& root, Baseline& b) {
  if (root.is_object() && root.contains("gpu_count") && root["gpu_count"].is_string()) {
    const std::string text = o.str("gpu_count");
    if (text != "node") {
      o.fail("gpu_count", fmt::format("\"{}\" is not a GPU count (expected 1..1024, or node)", text));
    }
    b.gpu_count_from_node = true;
    return;
  }
  if (auto n = o.opt_integer("gpu_count", 1, 1024)) b.gpu_count = static_cast<int>(*n);
}

CheckExpectation check_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject c(j, file, path);
  CheckExpectation e;
  e.optional = c.opt_boolean("optional").value_or(false);
  e.required = c.opt_boolean("required").value_or(false);
  e.every_gpu = c.opt_boolean("every_gpu").value_or(false);
  // A skip the baseline forgives cannot also be one it requires.
  if (e.optional && e.required) c.fail("required", "a check cannot be both optional and required");
  if (e.every_gpu && !e.required) c.fail("every_gpu", "every_gpu needs required: true");
  c.finish();
  return e;
}

Baseline baseline_from_json(const json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  Baseline b;
  b.schema = read_schema(o, kBaselineSchema);  // first: a newer file fails on its version
  b.hardware_class = o.nonempty_str("hardware_class");
  if (!is_slug(b.hardware_class) || b.hardware_class == "unknown") {
    o.fail("hardware_class",
           fmt::format("\"{}\" is not a hardware class slug (lowercase letters, digits, '-')",
                       b.hardware_class));
  }
  read_gpu_count(o, root, b);
  const std::string kind = o.str_or("kind", "measured");
  if (kind == "floor") {
    b.kind = BaselineKind::floor;
  } else if (kind != "measured") {
    o.fail("kind", fmt::format("unknown baseline kind \"{}\" (expected measured or floor)", kind));
  }
  b.provenance = provenance_from_json(o.object("provenance"), file, o.child_path("provenance"));

  const std::string m_path = o.child_path("metrics");
  const json& metrics = o.array("metrics");
  std::set<std::string> names;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string p = JsonObject::index_path(m_path, i);
    MetricExpectation m = expectation_from_json(metrics[i], file, p);
    if (!names.insert(m.name).second)
      throw InputError(file, p + ".name", fmt::format("duplicate metric \"{}\"", m.name));
    b.metrics.push_back(std::move(m));
  }
  if (const json* limits = o.opt_array("finding_limits")) {
    const std::string l_path = o.child_path("finding_limits");
    std::set<std::string> codes;
    for (std::size_t i = 0; i < limits->size(); ++i) {
      const std::string p = JsonObject::index_path(l_path, i);
      FindingLimit f = limit_from_json((*limits)[i], file, p);
      if (!codes.insert(f.code).second)
        throw InputError(file, p + ".code", fmt::format("duplicate finding limit \"{}\"", f.code));
      b.finding_limits.push_back(std::move(f));
    }
  }
  if (const json* checks = o.opt_object("checks")) {
    for (auto it = checks->begin(); it != checks->end(); ++it) {
      b.checks[it.key()] = check_from_json(*it, file, o.child_path("checks") + "." + it.key());
    }
  }
  o.finish();
  b.origin = file;
  return b;
}

}  // namespace

Baseline parse_baseline_yaml(const std::string& text, const std::string& origin) {
  return from_yaml_document(text, origin, baseline_from_json);
}

Baseline load_baseline(const std::string& path) {
  return parse_baseline_yaml(read_text_file(path, YamlLimits{}.max_bytes), path);
}

}  // namespace gpuqual
