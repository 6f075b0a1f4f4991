#include "runner/run/check_task.hpp"

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_json.hpp"

namespace gpuqual {

using nlohmann::json;

std::string check_task_to_text(const std::string& check, const CheckContext& ctx,
                               const RunRecord& inventory) {
  RunRecord facts = inventory;
  facts.checks.clear();
  json j{{"check", check},
         {"gpus", ctx.gpus},
         {"hardware_class", ctx.hardware_class},
         {"gpu_unavailable_reason", ctx.gpu_unavailable_reason},
         {"params", ctx.params},
         {"budget_s", ctx.budget_s},
         {"side_dir", ctx.side_dir},
         {"visible_devices", ctx.visible_devices},
         {"inventory", to_json(facts)}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

CheckTask read_check_task(const std::string& path) {
  const json j = read_json_file(path);
  JsonObject o(j, path, "$");
  CheckTask task;
  task.check = o.nonempty_str("check");
  const json& gpus = o.array("gpus");
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (!gpus[i].is_number_integer())
      throw InputError(path, JsonObject::index_path("$.gpus", i), "expected a GPU index");
    task.context.gpus.push_back(gpus[i].get<int>());
  }
  task.context.hardware_class = o.str("hardware_class");
  task.context.gpu_unavailable_reason = o.str("gpu_unavailable_reason");
  task.context.params = o.object("params");
  task.context.budget_s = o.number("budget_s", 0);
  task.context.side_dir = o.str("side_dir");
  task.context.visible_devices = o.str_or("visible_devices", "");
  const RunRecord facts = record_from_json(o.object("inventory"), path);
  task.context.node = facts.node;
  task.context.node_gpus = facts.gpus;
  o.finish();
  return task;
}

CheckResult read_check_result(const std::string& path) {
  return check_from_json(read_json_file(path), path, "$");
}

std::string check_result_to_text(const CheckResult& result) {
  return to_json(result).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuqual
