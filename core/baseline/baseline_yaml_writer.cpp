// baseline_to_yaml: the commented YAML that `gpuqual baseline build` writes and a person reviews
// in a pull request. Every string is double-quoted (so "12.8" stays a string and a hostname
// like "yes" stays a name), numbers are written in their shortest exact form, and comments
// spell out what each tolerance means in the metric's unit.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/baseline/baseline.hpp"

namespace gpuqual {

namespace {

// Shortest representation that reads back to the same double.
std::string num(double v) { return fmt::format("{}", v); }

void str(YAML::Emitter& out, const std::string& key, const std::string& value) {
  out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

std::string threshold_comment(const MetricExpectation& m) {
  const bool higher = m.direction == Direction::higher;
  const double limit = higher ? m.expected * (1 - m.tolerance) : m.expected * (1 + m.tolerance);
  std::string c =
      fmt::format("{} is better; fails {} {:.4g} {} ({}{:.3g} %)", to_string(m.direction),
                  higher ? "below" : "above", limit, m.unit, higher ? "-" : "+", m.tolerance * 100);
  if (m.noise_cv)
    c += fmt::format(", widened by the noise model (run-to-run CV {:.3g} %)", *m.noise_cv * 100);
  return c;
}

void emit_metric(YAML::Emitter& out, const MetricExpectation& m) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << m.name;
  out << YAML::Comment(threshold_comment(m));
  str(out, "unit", m.unit);
  out << YAML::Key << "direction" << YAML::Value << std::string(to_string(m.direction));
  out << YAML::Key << "expected" << YAML::Value << num(m.expected);
  out << YAML::Key << "tolerance" << YAML::Value << num(m.tolerance);
  if (m.warn_tolerance) out << YAML::Key << "warn_tolerance" << YAML::Value << num(*m.warn_tolerance);
  if (m.noise_cv) out << YAML::Key << "noise_cv" << YAML::Value << num(*m.noise_cv);
  out << YAML::Key << "per_gpu" << YAML::Value << (m.per_gpu ? "true" : "false");
  out << YAML::Key << "required" << YAML::Value << (m.required ? "true" : "false");
  out << YAML::EndMap;
}

void emit_limit(YAML::Emitter& out, const FindingLimit& f) {
  out << YAML::BeginMap;
  str(out, "code", f.code);
  if (f.max_value) {
    out << YAML::Key << "max_value" << YAML::Value << num(*f.max_value);
    out << YAML::Comment(
        fmt::format("{} when the finding's value exceeds {}", to_string(f.status), num(*f.max_value)));
  } else {
    out << YAML::Comment(fmt::format("any occurrence is {}", to_string(f.status)));
  }
  out << YAML::Key << "status" << YAML::Value << std::string(to_string(f.status));
  if (!f.action.empty()) str(out, "action", f.action);
  out << YAML::EndMap;
}

// What the baseline says of one check; only the keys that are set.
void emit_check(YAML::Emitter& out, const std::string& name, const CheckExpectation& c) {
  out << YAML::Key << name << YAML::Value << YAML::BeginMap;
  if (c.optional) out << YAML::Key << "optional" << YAML::Value << "true";
  if (c.required) out << YAML::Key << "required" << YAML::Value << "true";
  if (c.every_gpu) out << YAML::Key << "every_gpu" << YAML::Value << "true";
  if (!c.optional && !c.required) out << YAML::Key << "optional" << YAML::Value << "false";
  out << YAML::EndMap;
  if (c.every_gpu) out << YAML::Comment("in every record, judged on every GPU");
}

void emit_provenance(YAML::Emitter& out, const Provenance& p) {
  out << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  str(out, "source", p.source);
  out << YAML::Key << "runs" << YAML::Value << std::to_string(p.runs);
  out << YAML::Key << "nodes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& n : p.nodes) out << YAML::DoubleQuoted << n;
  out << YAML::EndSeq;
  out << YAML::Key << "stack" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : p.stack) str(out, k, v);
  out << YAML::EndMap;
  str(out, "created", p.created);
  str(out, "date_range", p.date_range);
  str(out, "notes", p.notes);
  out << YAML::EndMap;
}

}  // namespace

std::string baseline_to_yaml(const Baseline& b) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::Comment(fmt::format(
      "gpuqual baseline for hardware class {}. Format and review guide: baselines/README.md.\n"
      "A metric fails when it drops more than `tolerance` (relative) below `expected` in its bad\n"
      "direction; findings are judged by finding_limits.",
      b.hardware_class));
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << b.schema;
  out << YAML::Key << "hardware_class" << YAML::Value << YAML::DoubleQuoted << b.hardware_class;
  if (b.kind == BaselineKind::floor) out << YAML::Key << "kind" << YAML::Value << "floor";
  if (b.gpu_count) {
    out << YAML::Key << "gpu_count" << YAML::Value << std::to_string(*b.gpu_count);
    out << YAML::Comment(
        "the GPUs a node of the class has (fewer: gpu.missing); node-scope metrics hold for it");
  } else if (b.gpu_count_from_node) {
    out << YAML::Key << "gpu_count" << YAML::Value << "node";
    out << YAML::Comment("the node's own labels, capacity and PCI bus say how many GPUs it has");
  }
  emit_provenance(out, b.provenance);
  out << YAML::Key << "metrics" << YAML::Value << YAML::BeginSeq;
  for (const auto& m : b.metrics) emit_metric(out, m);
  out << YAML::EndSeq;
  out << YAML::Key << "finding_limits" << YAML::Value << YAML::BeginSeq;
  for (const auto& f : b.finding_limits) emit_limit(out, f);
  out << YAML::EndSeq;
  if (!b.checks.empty()) {
    out << YAML::Key << "checks" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, c] : b.checks) emit_check(out, name, c);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gpuqual
