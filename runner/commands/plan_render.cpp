#include "runner/commands/plan_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/base/plural.hpp"
#include "core/base/text_escape.hpp"
#include "runner/reporters/report_format.hpp"

namespace gpuqual {

namespace {

using report::Row;

// The rows both formats show: one per wave and class, then one per node that is not planned.
struct PlanRows {
  std::vector<Row> waves;   // wave, class, nodes, GPUs out, left / floor, evicted pods, where to, PDBs, fits
  std::vector<Row> others;  // node, class, state, reason
};

std::string pdb_text(const Wave& w) {
  std::vector<std::string> parts;
  for (const PdbUse& p : w.pdbs) parts.push_back(fmt::format("{} {}/{}", p.pdb, p.evictions, p.allowed));
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

PlanRows plan_rows(const Plan& plan) {
  PlanRows rows;
  std::unordered_map<std::string, const std::string*> class_of;
  for (const NodeFate& f : plan.nodes) class_of.emplace(f.node, &f.hardware_class);
  for (const Wave& w : plan.waves) {
    for (const WaveClass& c : w.classes) {
      std::vector<std::string> nodes;
      for (const std::string& n : w.nodes) {
        if (*class_of.at(n) == c.hardware_class) nodes.push_back(n);
      }
      int pods = 0, gpu_pods = 0;
      std::vector<std::string> to;  // where the GPU pods go, each node once, in order
      for (const PlannedEviction& e : w.evictions) {
        if (*class_of.at(e.node) != c.hardware_class) continue;
        ++pods;
        if (e.gpus == 0) continue;
        ++gpu_pods;
        const std::string dest = e.placed_on.empty() ? "(none)" : e.placed_on;
        if (std::find(to.begin(), to.end(), dest) == to.end()) to.push_back(dest);
      }
      if (to.size() > 4) {
        const std::size_t more = to.size() - 3;
        to.resize(3);
        to.push_back(fmt::format("+{} more", more));
      }
      rows.waves.push_back(
          {fmt::format("{}{}", w.index, w.canary ? " (canary)" : ""), c.hardware_class,
           fmt::format("{}", fmt::join(nodes, ",")), std::to_string(c.gpus_out),
           fmt::format("{} / {}", c.schedulable_left, c.floor), fmt::format("{} ({} GPU)", pods, gpu_pods),
           to.empty() ? "-" : fmt::format("{}", fmt::join(to, ",")), pdb_text(w),
           w.fits() ? "yes" : fmt::format("no: {} unplaced", plural(w.unplaced_gpu_pods, "GPU pod"))});
    }
  }
  for (const NodeFate& f : plan.nodes) {
    if (f.state == NodeState::planned) continue;
    rows.others.push_back({f.node, f.hardware_class, std::string(to_string(f.state)),
                           fmt::format("{}", fmt::join(f.reasons, "; "))});
  }
  return rows;
}

const Row kWaveHeader{"WAVE",    "CLASS",       "NODES",           "GPUS OUT", "LEFT / FLOOR",
                      "EVICTED", "GPU PODS TO", "PDB BUDGET USED", "PODS FIT"};
const Row kOtherHeader{"NODE", "CLASS", "STATE", "REASON"};

}  // namespace

std::string render_plan_table(const Plan& plan) {
  const PlanRows rows = plan_rows(plan);
  std::string out = "capacity per class:\n";
  std::vector<Row> classes;
  for (const ClassCapacity& c : plan.classes) {
    classes.push_back(
        {c.hardware_class, std::to_string(c.nodes), std::to_string(c.gpus), std::to_string(c.schedulable),
         c.floor_text.empty()                      ? "-"
         : c.floor_text == std::to_string(c.floor) ? c.floor_text
                                                   : fmt::format("{} ({})", c.floor, c.floor_text),
         c.unmet ? "UNMET: the policy cannot be met" : ""});
  }
  report::aligned_table(out, {"CLASS", "NODES", "GPUS", "SCHEDULABLE", "FLOOR", ""}, classes);
  if (!rows.waves.empty()) {
    out += "\nwaves:\n";
    report::aligned_table(out, kWaveHeader, rows.waves);
  }
  if (!rows.others.empty()) {
    out += "\nnot in a wave:\n";
    report::aligned_table(out, kOtherHeader, rows.others);
  }
  return escape_controls(out);
}

std::string render_plan_markdown(const Plan& plan) {
  const PlanRows rows = plan_rows(plan);
  std::string out = fmt::format("# gpuqual plan\n\n{}\n\n", report::md_cell(plan.summary));
  auto table = [&](const Row& header, const std::vector<Row>& body) {
    out += "|";
    for (const auto& h : header) out += " " + report::md_cell(h) + " |";
    out += "\n|";
    for (std::size_t i = 0; i < header.size(); ++i) out += "---|";
    out += "\n";
    for (const Row& r : body) {
      out += "|";
      for (const auto& c : r) out += " " + report::md_cell(c) + " |";
      out += "\n";
    }
  };
  if (!rows.waves.empty()) {
    out += "## Waves\n\n";
    table(kWaveHeader, rows.waves);
  }
  if (!rows.others.empty()) {
    out += "\n## Not in a wave\n\n";
    table(kOtherHeader, rows.others);
  }
  return out;
}

}  // namespace gpuqual
