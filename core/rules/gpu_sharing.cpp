#include "core/rules/gpu_sharing.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/yaml_tree.hpp"

namespace gpuqual {

namespace {

using nlohmann::json;

// sharing.timeSlicing or sharing.mps: which one, its resource name and its replicas.
void read_sharing(JsonObject& sharing, const std::string& file, SharingConfig& c) {
  for (const char* strategy : {"timeSlicing", "mps"}) {
    const json* s = sharing.opt_object(strategy);
    if (!s) continue;
    JsonObject o(*s, file, sharing.child_path(strategy));
    c.strategy = std::string(strategy) == "mps" ? "mps" : "time-slicing";
    const bool renamed = o.opt_boolean("renameByDefault").value_or(false);
    (void)o.opt_boolean("failRequestsGreaterThanOne");
    const json& resources = o.array("resources");
    for (std::size_t i = 0; i < resources.size(); ++i) {
      JsonObject r(resources[i], file, JsonObject::index_path(o.child_path("resources"), i));
      const std::string name = r.nonempty_str("name");
      const std::int64_t replicas = r.integer("replicas", 1, 1024);
      (void)r.str_or("rename", "");
      (void)r.opt_array("devices");
      r.finish();
      if (name != "nvidia.com/gpu") continue;
      c.replicas = replicas;
      c.resource = renamed ? "nvidia.com/gpu.shared" : "nvidia.com/gpu";
    }
    o.finish();
  }
  sharing.finish();
}

SharingConfig config_from(const json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  SharingConfig c{"none", "nvidia.com/gpu", 1};
  if (o.has("version") && o.str("version") != "v1")
    o.fail("version", "this gpuqual reads the device plugin's v1");
  if (const json* sharing = o.opt_object("sharing")) {
    JsonObject s(*sharing, file, o.child_path("sharing"));
    read_sharing(s, file, c);
  }
  o.finish({"flags", "resources"});  // the plugin's other sections are not sharing's concern
  return c;
}

SharingConfig parse_text(const std::string& text, const std::string& origin) {
  const YamlTree tree = parse_yaml_tree(text, origin);
  try {
    return config_from(tree.root, origin);
  } catch (const InputError&) {
    rethrow_with_line(tree);
  }
}

std::optional<std::int64_t> label_count(const std::map<std::string, std::string>& labels, const char* key) {
  auto it = labels.find(key);
  if (it == labels.end()) return std::nullopt;
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
  if (ec != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return n;
}

Finding fail_finding(const char* code, std::string detail, std::string action) {
  return Finding{
      .code = code, .severity = Severity::fail, .detail = std::move(detail), .action = std::move(action)};
}

// The labels GFD derived against the config they came from.
void compare_labels(const SharingInputs& in, SharingResult& r) {
  if (!in.config) return;
  ++r.compared;
  const std::optional<std::int64_t> replicas = label_count(in.labels, kReplicasLabel);
  if (replicas && *replicas != in.config->replicas) {
    r.findings.push_back(
        fail_finding("sharing.replicas_label_mismatch",
                     fmt::format("{}={} but the device plugin's config gives {} replicas", kReplicasLabel,
                                 *replicas, in.config->replicas),
                     "restart GPU Feature Discovery and the device plugin after a sharing config change"));
  }
  auto strategy = in.labels.find(kSharingStrategyLabel);
  if (strategy != in.labels.end() && strategy->second != in.config->strategy) {
    r.findings.push_back(
        fail_finding("sharing.strategy_mismatch",
                     fmt::format("{}={} but the device plugin's config shares by {}", kSharingStrategyLabel,
                                 strategy->second, in.config->strategy),
                     "restart GPU Feature Discovery and the device plugin after a sharing config change"));
  }
}

// The Node's capacity against replicas x GPUs (the config's replicas, else the label's).
void compare_capacity(const SharingInputs& in, SharingResult& r) {
  if (!in.capacity) return;
  const std::int64_t replicas =
      in.config ? in.config->replicas : label_count(in.labels, kReplicasLabel).value_or(1);
  const std::string resource = in.config ? in.config->resource : "nvidia.com/gpu";
  ++r.compared;
  const std::int64_t want = replicas * in.physical_gpus;
  const auto it = in.capacity->find(resource);
  const std::int64_t got = it == in.capacity->end() ? 0 : it->second;
  if (got == want) return;
  r.findings.push_back(fail_finding(
      "sharing.capacity_mismatch",
      fmt::format("{}: the Node advertises {}, {} replica{} x {} GPU{} = {}", resource, got, replicas,
                  replicas == 1 ? "" : "s", in.physical_gpus, in.physical_gpus == 1 ? "" : "s", want),
      "the labels promise what the device plugin does not advertise (or the reverse): restart the device "
      "plugin and check its config"));
}

}  // namespace

SharingConfig parse_device_plugin_sharing(const std::string& text, const std::string& origin) {
  const YamlTree tree = parse_yaml_tree(text, origin);
  if (!tree.root.is_object() || tree.root.value("kind", "") != "ConfigMap") return parse_text(text, origin);
  const json data = tree.root.value("data", json::object());
  for (const auto& [key, value] : data.items()) {
    if (value.is_string()) return parse_text(value.get<std::string>(), origin + " data." + key);
  }
  throw InputError(origin, "$.data", "a ConfigMap without a device plugin config");
}

bool sharing_in_play(const std::map<std::string, std::string>& labels,
                     const std::optional<SharingConfig>& config) {
  if (config && (config->replicas > 1 || config->strategy != "none")) return true;
  if (label_count(labels, kReplicasLabel).value_or(1) > 1) return true;
  auto s = labels.find(kSharingStrategyLabel);
  return s != labels.end() && s->second != "none";
}

SharingResult judge_gpu_sharing(const SharingInputs& in) {
  SharingResult r;
  compare_labels(in, r);
  compare_capacity(in, r);
  return r;
}

}  // namespace gpuqual
