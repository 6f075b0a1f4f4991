// The CDI specs of a host tree: every *.yaml, *.yml and *.json of /etc/cdi and /var/run/cdi (the
// spec directories of the CDI specification, github.com/cncf-tags/container-device-interface,
// SPEC.md), parsed by core/base/yaml_tree (yaml-cpp; JSON is YAML, so one parser reads both
// spellings) with its limits, so a spec that does not parse is named with its line.
#include <fmt/format.h>

#include <regex>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/yaml_tree.hpp"
#include "device/host/stack_tree_reader.hpp"

namespace gpuqual {
namespace {

constexpr std::size_t kMaxSpecs = 64;

using nlohmann::json;

// The spec's edits: device nodes (/dev/nvidiaN → N), mounts (hostPath) and hooks (path).
void read_edits(const json& edits, CdiDevice* device, std::set<std::pair<std::string, std::string>>& refs) {
  if (!edits.is_object()) return;
  static const std::regex gpu_node(R"(^/dev/nvidia(\d+)$)");
  if (auto it = edits.find("deviceNodes"); device && it != edits.end() && it->is_array()) {
    for (const auto& n : *it) {
      std::smatch m;
      if (!n.is_object() || !n.contains("path") || !n["path"].is_string()) continue;
      const std::string p = n["path"].get<std::string>();
      if (std::regex_match(p, m, gpu_node)) device->gpu_minors.push_back(std::stoi(m[1].str().substr(0, 6)));
    }
  }
  if (auto it = edits.find("mounts"); it != edits.end() && it->is_array()) {
    for (const auto& mnt : *it) {
      if (mnt.is_object() && mnt.contains("hostPath") && mnt["hostPath"].is_string())
        refs.emplace(mnt["hostPath"].get<std::string>(), "mount");
    }
  }
  if (auto it = edits.find("hooks"); it != edits.end() && it->is_array()) {
    for (const auto& hook : *it) {
      if (hook.is_object() && hook.contains("path") && hook["path"].is_string())
        refs.emplace(hook["path"].get<std::string>(), "hook");
    }
  }
}

std::string string_field(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

void read_spec_tree(HostTree& tree, const json& root, CdiSpecFile& spec) {
  if (!root.is_object()) {
    spec.parse_error = "not a CDI spec (the document is not a mapping)";
    return;
  }
  spec.kind = string_field(root, "kind");
  spec.cdi_version = string_field(root, "cdiVersion");
  if (spec.kind.empty()) spec.parse_error = "no `kind` (a CDI spec needs one)";
  std::set<std::pair<std::string, std::string>> refs;
  if (auto it = root.find("containerEdits"); it != root.end()) read_edits(*it, nullptr, refs);
  if (auto it = root.find("devices"); it != root.end() && it->is_array()) {
    for (const auto& d : *it) {
      if (!d.is_object()) continue;
      CdiDevice dev{.name = string_field(d, "name"), .gpu_minors = {}};
      if (auto e = d.find("containerEdits"); e != d.end()) read_edits(*e, &dev, refs);
      spec.devices.push_back(std::move(dev));
    }
  }
  for (const auto& [path, what] : refs) {
    spec.references.push_back(CdiReference{.path = path, .what = what, .exists = tree.exists(path)});
  }
}

}  // namespace

void read_stack_cdi_specs(HostTree& tree, HostStack& h) {
  for (const std::string dir : {"/etc/cdi", "/var/run/cdi"}) {
    for (const auto& name : tree.list(dir)) {
      const auto dot = name.rfind('.');
      const std::string ext = dot == std::string::npos ? "" : name.substr(dot);
      if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
      if (h.cdi_specs.size() == kMaxSpecs) {
        tree.note_unread(dir, fmt::format("more than {} CDI specs: the rest not read", kMaxSpecs));
        return;
      }
      const std::string path = dir + "/" + name;
      std::string text;
      if (tree.read(path, text) != HostTree::Read::ok) continue;
      CdiSpecFile spec;
      spec.path = path;
      try {
        const YamlLimits limits{.max_bytes = kStackMaxFileBytes, .max_depth = 32, .max_nodes = 400000};
        read_spec_tree(tree, parse_yaml_tree(text, path, limits).root, spec);
      } catch (const InputError& e) {
        spec.parse_error = e.where().empty() ? e.problem() : e.where() + ": " + e.problem();
      }
      h.cdi_specs.push_back(std::move(spec));
    }
  }
}

}  // namespace gpuqual
