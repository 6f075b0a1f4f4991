#include "core/record/mig_inventory_json.hpp"

namespace gpuqual {

namespace {

const char* mode_name(bool enabled) { return enabled ? "enabled" : "disabled"; }

nlohmann::json to_json(const MigGpuInstance& gi) {
  nlohmann::json cis = nlohmann::json::array();
  for (const MigComputeInstance& ci : gi.compute_instances) {
    cis.push_back({{"id", ci.id}, {"profile", ci.profile}, {"uuid", ci.uuid}, {"sm_count", ci.sm_count}});
  }
  return {{"id", gi.id},
          {"profile", gi.profile},
          {"placement", {{"start", gi.placement_start}, {"size", gi.placement_size}}},
          {"memory_bytes", gi.memory_bytes},
          {"compute_instances", cis}};
}

}  // namespace

nlohmann::json mig_to_json(const MigState& mig) {
  nlohmann::json gis = nlohmann::json::array();
  for (const MigGpuInstance& gi : mig.gpu_instances) gis.push_back(to_json(gi));
  nlohmann::json j{{"mode_current", mode_name(mig.current)},
                   {"mode_pending", mode_name(mig.pending)},
                   {"gpu_instances", gis}};
  if (!mig.unread.empty()) j["unread"] = mig.unread;
  return j;
}

}  // namespace gpuqual
