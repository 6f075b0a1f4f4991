#include "core/fleet/plan_json.hpp"

#include <nlohmann/json.hpp>

namespace gpuqual {

namespace {

nlohmann::json wave_json(const Wave& w) {
  nlohmann::json classes = nlohmann::json::array();
  for (const WaveClass& c : w.classes) {
    classes.push_back({{"class", c.hardware_class},
                       {"nodes_out", c.nodes_out},
                       {"gpus_out", c.gpus_out},
                       {"schedulable_left", c.schedulable_left},
                       {"floor", c.floor}});
  }
  nlohmann::json evictions = nlohmann::json::array();
  for (const PlannedEviction& e : w.evictions) {
    nlohmann::json j = {
        {"pod", e.pod}, {"node", e.node}, {"gpus", e.gpus}, {"training", e.training}, {"pdbs", e.pdbs}};
    j["placed_on"] = e.gpus == 0
                         ? nlohmann::json(nullptr)
                         : (e.placed_on.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.placed_on));
    evictions.push_back(std::move(j));
  }
  nlohmann::json pdbs = nlohmann::json::array();
  for (const PdbUse& p : w.pdbs)
    pdbs.push_back({{"pdb", p.pdb}, {"evictions", p.evictions}, {"allowed", p.allowed}});
  nlohmann::json out = {{"wave", w.index},        {"canary", w.canary},
                        {"nodes", w.nodes},       {"classes", classes},
                        {"evictions", evictions}, {"pdbs", pdbs},
                        {"fits", w.fits()},       {"unplaced_gpu_pods", w.unplaced_gpu_pods}};
  if (!w.racks.empty()) out["racks"] = w.racks;  // a cluster without racks reads as before
  return out;
}

}  // namespace

nlohmann::json plan_waves_json(const Plan& plan) {
  nlohmann::json out = nlohmann::json::array();
  for (const Wave& w : plan.waves) out.push_back(wave_json(w));
  return out;
}

nlohmann::json plan_to_json(const Plan& plan) {
  nlohmann::json classes = nlohmann::json::array();
  for (const ClassCapacity& c : plan.classes) {
    classes.push_back(
        {{"class", c.hardware_class},
         {"nodes", c.nodes},
         {"gpus", c.gpus},
         {"schedulable", c.schedulable},
         {"floor", c.floor},
         {"floor_policy", c.floor_text.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.floor_text)},
         {"unmet", c.unmet}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeFate& f : plan.nodes) {
    nodes.push_back({{"node", f.node},
                     {"class", f.hardware_class},
                     {"gpus", f.gpus},
                     {"state", std::string(to_string(f.state))},
                     {"wave", f.wave < 0 ? nlohmann::json(nullptr) : nlohmann::json(f.wave)},
                     {"reasons", f.reasons}});
    if (!f.rack.empty()) nodes.back()["rack"] = f.rack;
  }
  nlohmann::json out = {{"schema", kPlanResultSchema},    {"exit_code", plan.exit_code},
                        {"summary", plan.summary},        {"classes", classes},
                        {"waves", plan_waves_json(plan)}, {"nodes", nodes}};
  if (!plan.warnings.empty()) out["warnings"] = plan.warnings;  // the file is as before without any
  return out;
}

}  // namespace gpuqual
