// target_to_yaml: `gpuqual matrix rollback` prints a target file; the loader in target.cpp reads
// it back (tests/unit/test_matrix_cli.cpp holds the two to that).
#include <yaml-cpp/yaml.h>

#include "core/verdict/target.hpp"

namespace gpuqual {

namespace {

void emit_rules(YAML::Emitter& out, const std::map<std::string, ComponentRule>& rules) {
  out << YAML::BeginMap;
  for (const auto& [name, rule] : rules) {
    out << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << std::string(to_string(rule.match)) << YAML::Value;
    if (rule.match == TargetMatch::absent) {
      out << true;
    } else {
      out << YAML::DoubleQuoted << rule.value;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string target_to_yaml(const Target& t, const std::vector<std::string>& comment) {
  std::string head;
  for (const auto& line : comment) head += "# " + line + "\n";
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << kTargetSchema;
  if (!t.components.empty()) {
    out << YAML::Key << "components" << YAML::Value;
    emit_rules(out, t.components);
  }
  if (!t.classes.empty()) {
    out << YAML::Key << "classes" << YAML::Value << YAML::BeginMap;
    for (const auto& [slug, rules] : t.classes) {
      out << YAML::Key << slug << YAML::Value << YAML::BeginMap << YAML::Key << "components" << YAML::Value;
      emit_rules(out, rules);
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return head + out.c_str() + "\n";
}

}  // namespace gpuqual
