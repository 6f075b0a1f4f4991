#include "core/fleet/plan_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/base/yaml_document.hpp"
#include "core/record/hardware_class.hpp"

namespace gpuqual {

namespace {

ClassPolicy class_from_json(const nlohmann::json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  ClassPolicy c;
  // min_schedulable_gpus: a whole number of GPUs, or "N%" / "N.N%" of the class.
  if (!o.has("min_schedulable_gpus")) o.fail("min_schedulable_gpus", "required field is missing");
  const nlohmann::json& floor = j.at("min_schedulable_gpus");
  if (floor.is_string()) {
    const std::string s = floor.get<std::string>();
    double pct = -1;
    const bool pct_form = s.size() >= 2 && s.back() == '%';
    if (pct_form) {
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size() - 1, pct);
      if (ec != std::errc() || ptr != s.data() + s.size() - 1) pct = -1;
    }
    if (!pct_form || !(pct >= 0 && pct <= 100)) {
      o.fail("min_schedulable_gpus",
             fmt::format("\"{}\" is neither a number of GPUs nor a percentage 0%-100%", s));
    }
    c.min_pct = pct;
    o.str("min_schedulable_gpus");  // mark as read
  } else {
    c.min_gpus = static_cast<int>(o.integer("min_schedulable_gpus", 0, 1'000'000));
  }
  c.max_nodes_out = static_cast<int>(o.integer("max_nodes_out", 1, 100'000));
  c.canary = static_cast<int>(o.opt_integer("canary", 1, 100'000).value_or(1));
  if (c.canary > c.max_nodes_out) {
    o.fail("canary",
           fmt::format("a canary of {} nodes is more than max_nodes_out ({})", c.canary, c.max_nodes_out));
  }
  o.finish();
  return c;
}

TrainingPolicy training_from_json(const nlohmann::json& j, const std::string& file) {
  JsonObject o(j, file, "$.training");
  TrainingPolicy t;
  if (o.has("owner_kinds")) t.owner_kinds = o.string_array("owner_kinds");
  if (const nlohmann::json* l = o.opt_object("labels")) {
    for (auto it = l->begin(); it != l->end(); ++it) {
      if (!it->is_string())
        throw InputError(file, "$.training.labels." + it.key(), "expected a string (quote numbers)");
      t.labels[it.key()] = it->get<std::string>();
    }
  }
  if (o.has("before_drain")) {
    const std::string mode = o.str("before_drain");
    if (mode == "checkpoint")
      t.before_drain = TrainingPolicy::BeforeDrain::checkpoint;
    else if (mode == "done")
      t.before_drain = TrainingPolicy::BeforeDrain::done;
    else
      o.fail("before_drain", fmt::format("\"{}\" is not checkpoint or done", mode));
  }
  if (o.has("checkpoint_annotation")) t.checkpoint_annotation = o.nonempty_str("checkpoint_annotation");
  o.finish();
  return t;
}

PlanPolicy policy_from_json(const nlohmann::json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  PlanPolicy p;
  p.schema = read_schema(o, kPlanPolicySchema);
  const nlohmann::json& classes = o.object("classes");
  if (classes.empty()) o.fail("classes", "name at least one hardware class");
  for (auto it = classes.begin(); it != classes.end(); ++it) {
    const std::string path = "$.classes." + it.key();
    if (!is_valid_class_slug(it.key())) {
      throw InputError(file, path, "not a hardware class slug (like h100-sxm-80gb; docs/hardware-class.md)");
    }
    p.classes[it.key()] = class_from_json(*it, file, path);
  }
  if (const nlohmann::json* t = o.opt_object("training")) p.training = training_from_json(*t, file);
  if (o.has("exclude_nodes")) {
    for (const std::string& n : o.string_array("exclude_nodes")) p.exclude_nodes.insert(n);
  }
  if (o.has("rack_label")) p.rack_label = o.nonempty_str("rack_label");
  o.finish();
  p.origin = file;
  return p;
}

}  // namespace

int ClassPolicy::floor_gpus(int class_gpus) const {
  if (min_gpus) return *min_gpus;
  // Rounded up: "75 % must stay" is never met by 74.9 %. The small epsilon keeps 75 % of 64
  // (48.000000000000007 in floating point) at 48.
  return static_cast<int>(std::ceil(min_pct.value_or(0) * class_gpus / 100.0 - 1e-9));
}

std::string ClassPolicy::floor_text() const {
  return min_gpus ? std::to_string(*min_gpus) : fmt::format("{}%", min_pct.value_or(0));
}

bool TrainingPolicy::is_training(const ClusterPod& pod) const {
  for (const std::string& k : owner_kinds) {
    if (pod.owned_by_kind(k)) return true;
  }
  return std::any_of(labels.begin(), labels.end(), [&](const auto& kv) {
    auto it = pod.labels.find(kv.first);
    return it != pod.labels.end() && it->second == kv.second;
  });
}

bool TrainingPolicy::blocks_drain(const ClusterPod& pod) const {
  if (pod.finished() || !is_training(pod)) return false;
  if (before_drain == BeforeDrain::done) return true;
  auto it = pod.annotations.find(checkpoint_annotation);
  return it == pod.annotations.end() || it->second != "true";
}

PlanPolicy parse_plan_policy_yaml(const std::string& text, const std::string& origin) {
  return from_yaml_document(text, origin, policy_from_json);
}

PlanPolicy load_plan_policy(const std::string& path) {
  return parse_plan_policy_yaml(read_text_file(path, YamlLimits{}.max_bytes), path);
}

}  // namespace gpuqual
