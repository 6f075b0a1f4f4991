// `gpuqual revalidate --nodes FILE --pods FILE --pdbs FILE --policy FILE --records DIR --max-age 7d
// --at-once N`: which GPU nodes the re-validation CronJob qualifies again now (core/fleet/revalidate.hpp;
// docs/kubernetes.md, "Re-validation"). The cluster and the records are read as `gpuqual plan` reads
// them (runner/commands/plan_inputs.hpp).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"
#include "core/fleet/plan_policy.hpp"
#include "core/fleet/revalidate.hpp"
#include "core/verdict/record_age.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/freshness_options.hpp"
#include "runner/commands/plan_inputs.hpp"
#include "runner/commands/revalidate_inputs.hpp"
#include "runner/reporters/report_format.hpp"

namespace gpuqual {

namespace {

inline constexpr const char* kRevalidateSchema = "gpuqual.revalidate/v1";

struct RevalidateArgs {
  ClusterSources cluster;
  std::string policy;
  StandingSources standings;
  int at_once = 0;
  std::string format = "table";
  std::string output;
};

nlohmann::json revalidation_json(const Revalidation& r) {
  nlohmann::json nodes = nlohmann::json::array(), unknown = nlohmann::json::array();
  for (const RevalidateNode& n : r.nodes) {
    nodes.push_back({{"node", n.node},
                     {"class", n.hardware_class},
                     {"due", std::string(to_string(n.due))},
                     {"selected", n.selected},
                     {"waits", n.waits.empty() ? nlohmann::json(nullptr) : nlohmann::json(n.waits)}});
    if (!unknown_reason(n.due).empty())
      unknown.push_back({{"node", n.node}, {"reason", std::string(unknown_reason(n.due))}});
  }
  return {{"schema", kRevalidateSchema}, {"at_once", r.at_once}, {"selected", r.selected},
          {"unknown", unknown},          {"nodes", nodes},       {"warnings", r.warnings},
          {"exit_code", r.exit_code},    {"summary", r.summary}};
}

std::string revalidation_table(const Revalidation& r) {
  std::vector<report::Row> rows;
  for (const RevalidateNode& n : r.nodes) {
    if (n.due == Due::current) continue;  // the summary counts them
    rows.push_back({n.node, n.hardware_class, std::string(to_string(n.due)),
                    n.selected ? "selected" : (n.waits.empty() ? "-" : "waits: " + n.waits)});
  }
  std::string out;
  report::aligned_table(out, {"NODE", "CLASS", "DUE", "NOW"}, rows);
  return escape_controls(out);
}

int run_revalidate(RevalidateArgs& a) {
  if (!a.cluster.kubectl && (a.cluster.nodes.empty() || a.cluster.pods.empty() || a.cluster.pdbs.empty()))
    throw InputError("--nodes/--pods/--pdbs", "",
                     "give all three files (or - for one of them), or --kubectl");
  const PlanPolicy policy = load_plan_policy(a.policy);
  auto states = std::make_shared<CurrentNodes>();
  const Cluster cluster = read_cluster(a.cluster, states.get());
  a.standings.nodes = states;
  Standings standings = read_standings(a.standings);
  std::vector<std::string> label_warnings;
  apply_valid_until(standings, cluster, now_ms(), label_warnings);  // gpuqual.io/valid-until
  for (const std::string& w : label_warnings) print_line(stderr, "gpuqual revalidate: warning: " + w);
  const Revalidation r = select_revalidation(cluster, policy, standings, a.at_once);
  for (const std::string& w : r.warnings) print_line(stderr, "gpuqual revalidate: warning: " + w);
  const nlohmann::json j = revalidation_json(r);
  if (!a.output.empty()) {
    try {
      write_file_atomic(a.output, j.dump(2) + "\n");
    } catch (const std::runtime_error& e) {
      throw InputError(a.output, "", e.what());
    }
  }
  if (a.format == "json") {
    std::fputs((j.dump() + "\n").c_str(), stdout);
    print_line(stderr, r.summary);
  } else {
    std::fputs(revalidation_table(r).c_str(), stdout);
    print_line(stdout, r.summary);
  }
  return r.exit_code;
}

void add_cluster_options(CLI::App* cmd, ClusterSources& c) {
  auto* nodes = cmd->add_option("--nodes", c.nodes, "kubectl get nodes -o json (a file, or - for stdin)")
                    ->type_name("FILE");
  auto* pods =
      cmd->add_option("--pods", c.pods, "kubectl get pods -A -o json (a file, or -)")->type_name("FILE");
  auto* pdbs =
      cmd->add_option("--pdbs", c.pdbs, "kubectl get pdb -A -o json (a file, or -)")->type_name("FILE");
  auto* kubectl =
      cmd->add_flag("--kubectl", c.kubectl, "Read the nodes, pods and PDBs by running kubectl get");
  cmd->add_option("--kubectl-command", c.kubectl_command, "The kubectl to run, with any flags of its own")
      ->type_name("CMD")
      ->needs(kubectl);
  kubectl->excludes(nodes)->excludes(pods)->excludes(pdbs);
}

}  // namespace

void add_revalidate_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<RevalidateArgs>();
  CLI::App* cmd = app.add_subcommand("revalidate",
                                     "Which GPU nodes to qualify again now: those whose last pass is older "
                                     "than --max-age or whose record is "
                                     "stale (a new boot, kubelet, kernel or driver), at most --at-once, "
                                     "least disruptive first, never below a "
                                     "class's floor (the plan's first wave)");
  add_cluster_options(cmd, args->cluster);
  cmd->add_option("--policy", args->policy, "The rollout policy, gpuqual.plan/v1 YAML (docs/plan.md)")
      ->type_name("FILE")
      ->required();
  cmd->add_option(
         "--records", args->standings.records,
         "The nodes' run records (or gate/compare verdict files), or directories of them; a GPU node "
         "with none is due")
      ->type_name("FILE");
  cmd->add_option("--baselines-dir", args->standings.baselines_dir, "Where the records find their baselines")
      ->type_name("DIR");
  add_max_age_option(cmd, args->standings.max_age)->required();
  cmd->add_option("--consecutive", args->standings.consecutive,
                  "Passing runs in a row a node needs since its last non-passing one")
      ->type_name("N")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--at-once", args->at_once, "The most nodes re-qualified at the same time")
      ->type_name("N")
      ->required()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--format", args->format, "stdout: table or json (gpuqual.revalidate/v1)")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--output", args->output, "Also write the JSON to this file, atomically")
      ->type_name("FILE");
  cmd->callback([args, &selected] { selected = [args] { return run_revalidate(*args); }; });
}

}  // namespace gpuqual
