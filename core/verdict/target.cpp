#include "core/verdict/target.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "core/base/dotted_version.hpp"
#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/base/yaml_document.hpp"
#include "core/record/kernel_release.hpp"

namespace gpuqual {

namespace {

constexpr std::array kComponents{
    TargetComponent{"driver_version", "NVIDIA driver version (node.driver_version, from NVML)"},
    TargetComponent{"cuda_driver_version", "CUDA version the driver supports (node.cuda_driver_version)"},
    TargetComponent{"cuda_runtime_version", "CUDA runtime gpuqual carries (node.cuda_runtime_version)"},
    TargetComponent{"cublas_version", "cuBLAS version (node.cublas_version)"},
    TargetComponent{"nccl_version", "NCCL version (node.nccl_version)"},
    TargetComponent{"kernel", "Linux kernel release (node.kernel, uname -r)"},
    TargetComponent{"os", "operating system (node.os, PRETTY_NAME of os-release)"},
    TargetComponent{"vbios", "VBIOS version of every GPU (gpus[].vbios)"},
    // Platform components `gpuqual matrix check` judges against the GPU Operator table; records
    // state them once the stack inventory (docs/inventory.md) is in the record.
    TargetComponent{"gpu_operator", "NVIDIA GPU Operator release (e.g. 25.10.0)"},
    TargetComponent{"kubernetes", "Kubernetes version of the node (kubelet, e.g. 1.33.4)"},
};

bool known_component(const std::string& name) {
  return std::any_of(kComponents.begin(), kComponents.end(),
                     [&](const TargetComponent& c) { return c.name == name; });
}

std::string component_list() {
  std::vector<std::string_view> names;
  for (const auto& c : kComponents) names.push_back(c.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

ComponentRule rule_from_json(const nlohmann::json& j, const std::string& file, const std::string& path) {
  ComponentRule r;
  if (j.is_string()) {  // shorthand: `kernel: 6.1.0-28-amd64` is an exact match
    r.value = j.get<std::string>();
    if (r.value.empty()) throw InputError(file, path, "must not be empty");
    return r;
  }
  if (j.is_number()) {
    // `cuda_driver_version: 12.8` is a YAML number: 12.10 would read as 12.1.
    throw InputError(
        file, path,
        fmt::format("write the version as a quoted string (\"{}\"): YAML reads it as a number", j.dump()));
  }
  JsonObject o(j, file, path);
  int given = 0;
  for (TargetMatch m : {TargetMatch::exact, TargetMatch::prefix, TargetMatch::minimum}) {
    const std::string key(to_string(m));
    if (!o.has(key)) continue;
    ++given;
    r.match = m;
    r.value = o.nonempty_str(key);
  }
  if (o.has("absent")) {
    ++given;
    r.match = TargetMatch::absent;
    if (!o.boolean("absent")) o.fail("absent", "write absent: true, or leave the component out");
  }
  if (given != 1) o.fail("", "give exactly one of exact, prefix or minimum (or absent: true)");
  if (r.match == TargetMatch::minimum && !DottedVersion::parse(r.value)) {
    o.fail("minimum", fmt::format("\"{}\" is not a dotted version number (e.g. 570.133.20)", r.value));
  }
  o.finish();
  return r;
}

// A record's kernel is `uname -r` alone (core/record/kernel_release.hpp): a target written from an
// old record's "6.1.0-28-amd64 (x86_64)" would match no record, so it is refused with the fix.
void refuse_kernel_with_arch(const std::string& component, const ComponentRule& r, const std::string& file,
                             const std::string& path) {
  if (component != "kernel" || r.match == TargetMatch::absent) return;
  const KernelRelease k = split_recorded_kernel(r.value);
  if (k.arch.empty()) return;
  throw InputError(file, path,
                   fmt::format("\"{}\" carries the architecture: a record's kernel is `uname -r` as "
                               "Kubernetes' nodeInfo.kernelVersion shows it; write \"{}\"",
                               r.value, k.release));
}

std::map<std::string, ComponentRule> rules_from_json(const nlohmann::json& j, const std::string& file,
                                                     const std::string& path) {
  if (!j.is_object()) throw InputError(file, path, "expected a mapping of component: rule");
  std::map<std::string, ComponentRule> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string p = path + "." + it.key();
    if (!known_component(it.key())) {
      throw InputError(file, p,
                       fmt::format("unknown component \"{}\" (known: {})", it.key(), component_list()));
    }
    out[it.key()] = rule_from_json(*it, file, p);
    refuse_kernel_with_arch(it.key(), out[it.key()], file, p);
  }
  return out;
}

Target target_from_json(const nlohmann::json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  Target t;
  t.schema = read_schema(o, kTargetSchema);
  if (const nlohmann::json* c = o.opt_object("components"))
    t.components = rules_from_json(*c, file, "$.components");
  if (const nlohmann::json* classes = o.opt_object("classes")) {
    for (auto it = classes->begin(); it != classes->end(); ++it) {
      const std::string p = "$.classes." + it.key();
      JsonObject co(*it, file, p);
      t.classes[it.key()] = rules_from_json(co.object("components"), file, p + ".components");
      co.finish();
    }
  }
  if (t.components.empty() && t.classes.empty())
    o.fail("", "a target names at least one component (components or classes)");
  o.finish();
  t.origin = file;
  return t;
}

}  // namespace

std::string_view to_string(TargetMatch m) {
  switch (m) {
    case TargetMatch::exact:
      return "exact";
    case TargetMatch::prefix:
      return "prefix";
    case TargetMatch::minimum:
      return "minimum";
    case TargetMatch::absent:
      return "absent";
  }
  return "exact";
}

std::map<std::string, ComponentRule> Target::rules_for(const std::string& hardware_class) const {
  std::map<std::string, ComponentRule> rules = components;
  if (auto it = classes.find(hardware_class); it != classes.end()) {
    for (const auto& [name, rule] : it->second) rules[name] = rule;
  }
  return rules;
}

Target parse_target_yaml(const std::string& text, const std::string& origin) {
  return from_yaml_document(text, origin, target_from_json);
}

Target load_target(const std::string& path) {
  return parse_target_yaml(read_text_file(path, YamlLimits{}.max_bytes), path);
}

std::span<const TargetComponent> target_components() { return kComponents; }

namespace {
// "v1.33.4" (kubelet) and "v25.10.0" (Operator tags) name the versions 1.33.4 and 25.10.0.
std::string strip_v(const std::string& version) {
  return version.size() > 1 && (version[0] == 'v' || version[0] == 'V') &&
                 std::isdigit(static_cast<unsigned char>(version[1]))
             ? version.substr(1)
             : version;
}
}  // namespace

std::map<std::string, std::vector<std::string>> record_components(const RunRecord& r) {
  std::map<std::string, std::vector<std::string>> out;
  auto put = [&](const char* name, const std::string& value) {
    if (!value.empty()) out[name] = {value};
  };
  put("driver_version", r.node.driver_version);
  put("cuda_driver_version", r.node.cuda_driver_version);
  put("cuda_runtime_version", r.node.cuda_runtime_version);
  put("cublas_version", r.node.cublas_version);
  put("nccl_version", r.node.nccl_version);
  put("kernel", r.node.kernel);
  put("os", r.node.os);
  std::vector<std::string> vbios;
  for (const auto& g : r.gpus) {
    if (!g.vbios.empty() && std::find(vbios.begin(), vbios.end(), g.vbios) == vbios.end())
      vbios.push_back(g.vbios);
  }
  if (!vbios.empty()) out["vbios"] = vbios;
  // The platform versions the stack inventory read (docs/inventory.md): the kubelet's version
  // from the Node object, the GPU Operator's from --platform gpu-operator=VERSION.
  if (r.node.stack) {
    if (r.node.stack->k8s_kubelet_version.known())
      put("kubernetes", strip_v(*r.node.stack->k8s_kubelet_version.value));
    auto op = r.node.stack->platform.find("gpu-operator");
    if (op != r.node.stack->platform.end()) put("gpu_operator", strip_v(op->second));
  }
  return out;
}

bool component_matches(const ComponentRule& rule, const std::string& found) {
  switch (rule.match) {
    case TargetMatch::exact:
      return found == rule.value;
    case TargetMatch::prefix:
      return found.starts_with(rule.value);
    case TargetMatch::minimum: {
      const auto want = DottedVersion::parse(rule.value);
      const auto have = DottedVersion::parse(found);
      return want && have && *have >= *want;
    }
    case TargetMatch::absent:
      return false;  // a stated value is never absent
  }
  return false;
}

namespace {
FindingRow absent_but_found(const std::string& name, const std::vector<std::string>& values) {
  FindingRow row;
  row.check = "stack";
  row.finding.code = "stack.off_target";
  row.finding.severity = Severity::fail;
  row.finding.detail = fmt::format("{}: expected absent (the target's stack does not state it), found {}",
                                   name, fmt::join(values, ","));
  row.finding.action = "bring the node to the target stack (or correct the target file) and run again";
  row.status = Status::fail;
  row.reason = row.finding.detail;
  return row;
}
}  // namespace

TargetJudgement judge_target(const RunRecord& r, const Target& t) {
  TargetJudgement out;
  const auto found = record_components(r);
  for (const auto& [name, rule] : t.rules_for(r.hardware_class.slug)) {
    auto it = found.find(name);
    if (rule.match == TargetMatch::absent) {
      if (it != found.end()) out.off_target.push_back(absent_but_found(name, it->second));
      continue;
    }
    if (it == found.end()) {
      out.unknown.push_back(fmt::format("{} not recorded: cannot check the target {} {}", name,
                                        to_string(rule.match), rule.value));
      continue;
    }
    // VBIOS is per GPU: name each GPU that is off target.
    if (name == "vbios") {
      for (const auto& g : r.gpus) {
        if (g.vbios.empty() || component_matches(rule, g.vbios)) continue;
        FindingRow row;
        row.check = "stack";
        row.finding.code = "stack.off_target";
        row.finding.severity = Severity::fail;
        row.finding.gpu = g.index;
        row.finding.detail =
            fmt::format("vbios: expected {} {}, found {}", to_string(rule.match), rule.value, g.vbios);
        row.finding.action = "flash the target VBIOS, or correct the target file";
        row.status = Status::fail;
        row.reason = row.finding.detail;
        out.off_target.push_back(std::move(row));
      }
      continue;
    }
    const std::string& value = it->second.front();
    if (component_matches(rule, value)) continue;
    FindingRow row;
    row.check = "stack";
    row.finding.code = "stack.off_target";
    row.finding.severity = Severity::fail;
    row.finding.detail =
        fmt::format("{}: expected {} {}, found {}", name, to_string(rule.match), rule.value, value);
    row.finding.action = "bring the node to the target stack (or correct the target file) and run again";
    row.status = Status::fail;
    row.reason = row.finding.detail;
    out.off_target.push_back(std::move(row));
  }
  return out;
}

}  // namespace gpuqual
