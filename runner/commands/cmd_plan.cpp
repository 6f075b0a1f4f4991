// `gpuqual plan --nodes FILE --pods FILE --pdbs FILE --policy FILE`: rollout waves that keep
// GPU capacity (docs/plan.md; the planner is core/fleet/plan.hpp).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"
#include "core/fleet/plan.hpp"
#include "core/fleet/plan_json.hpp"
#include "core/fleet/plan_policy.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/freshness_options.hpp"
#include "runner/commands/plan_inputs.hpp"
#include "runner/commands/plan_render.hpp"

namespace gpuqual {

namespace {

struct PlanArgs {
  ClusterSources cluster;
  std::string policy;
  std::vector<std::string> verdicts;
  std::string baselines_dir;
  std::string format = "table";
  std::string output;
  std::string max_age;  // --max-age: run records among --verdicts older than this do not qualify
  int consecutive = 1;  // --consecutive: passing runs in a row a node needs
};

int run_plan(PlanArgs& a) {
  if (!a.cluster.kubectl && (a.cluster.nodes.empty() || a.cluster.pods.empty() || a.cluster.pdbs.empty())) {
    throw InputError("--nodes/--pods/--pdbs", "",
                     "give all three files (or - for one of them), or --kubectl");
  }
  const PlanPolicy policy = load_plan_policy(a.policy);
  // The Nodes as they are now also say whether a run record among --verdicts is stale (taken
  // before the node's current boot, kubelet, kernel or driver; core/verdict/record_age.hpp).
  auto states = std::make_shared<CurrentNodes>();
  Cluster cluster = read_cluster(a.cluster, a.verdicts.empty() ? nullptr : states.get());
  GateOptions judged;
  judged.freshness = freshness_from(FreshnessFlags{a.max_age, ""});
  judged.freshness.nodes = states;
  judged.consecutive = a.consecutive;
  judged.rack_label = policy.rack_label;  // the records' racks are the plan's (core/judge/gate_racks.hpp)
  NodeClasses classes;
  const NodeOutcomes verdicts =
      a.verdicts.empty() ? NodeOutcomes{} : read_verdicts(a.verdicts, a.baselines_dir, judged, &classes);
  apply_record_classes(cluster.nodes, classes);  // a node its labels leave unknown: its records' class
  const Plan plan = make_plan(cluster, policy, verdicts);
  // On stderr in every format: stdout stays the table, the Markdown or Argo's wave list.
  for (const std::string& w : plan.warnings) print_line(stderr, "gpuqual plan: warning: " + w);
  if (!a.output.empty()) {
    try {
      write_file_atomic(a.output, plan_to_json(plan).dump(2) + "\n");
    } catch (const std::runtime_error& e) {
      throw InputError(a.output, "", e.what());
    }
  }
  if (a.format == "json") {
    // stdout is the wave list alone, for Argo's withParam; the summary goes to stderr.
    std::fputs((plan_waves_json(plan).dump() + "\n").c_str(), stdout);
    print_line(stderr, plan.summary);
  } else {
    const std::string body = a.format == "markdown" ? render_plan_markdown(plan) : render_plan_table(plan);
    std::fputs(body.c_str(), stdout);
    std::fputs("\n", stdout);
    print_line(stdout, plan.summary);  // the summary line last, as every command's
  }
  return plan.exit_code;
}

}  // namespace

void add_plan_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan",
                                     "Plan rollout waves that keep GPU capacity: wave 0 a canary per "
                                     "hardware class, then batches within each "
                                     "class's floor of schedulable GPUs, its most nodes out at once and "
                                     "every PodDisruptionBudget, holding back "
                                     "nodes with training jobs that have no checkpoint");
  auto* nodes =
      cmd->add_option("--nodes", args->cluster.nodes, "kubectl get nodes -o json (a file, or - for stdin)")
          ->type_name("FILE");
  auto* pods = cmd->add_option("--pods", args->cluster.pods, "kubectl get pods -A -o json (a file, or -)")
                   ->type_name("FILE");
  auto* pdbs = cmd->add_option("--pdbs", args->cluster.pdbs, "kubectl get pdb -A -o json (a file, or -)")
                   ->type_name("FILE");
  cmd->add_option("--policy", args->policy, "The rollout policy, gpuqual.plan/v1 YAML (docs/plan.md)")
      ->type_name("FILE")
      ->required();
  cmd->add_option(
         "--verdicts", args->verdicts,
         "What gpuqual judged so far: gate/compare/diff --format json files, or run records (judged against "
         "--baselines-dir as gate does), or directories of them. Qualified nodes are done; failed ones stay "
         "out "
         "and are no longer capacity")
      ->type_name("FILE");
  cmd->add_option("--baselines-dir", args->baselines_dir,
                  "Where run records among --verdicts find their baselines")
      ->type_name("DIR");
  add_max_age_option(cmd, args->max_age);
  cmd->add_option(
         "--consecutive", args->consecutive,
         "A node is done only after this many passing runs in a row since its last non-passing one (its run "
         "records among --verdicts are its history; a verdict file cannot show one)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000));
  auto* kubectl =
      cmd->add_flag("--kubectl", args->cluster.kubectl,
                    "Read the nodes, pods and PDBs by running kubectl get ... -o json (the current context)");
  cmd->add_option("--kubectl-command", args->cluster.kubectl_command,
                  "The kubectl to run, with any flags of its own (\"kubectl --context prod\")")
      ->type_name("CMD")
      ->needs(kubectl);
  kubectl->excludes(nodes)->excludes(pods)->excludes(pdbs);
  cmd->add_option("--format", args->format,
                  "stdout: table, json (the waves as one list, for Argo withParam) or markdown")
      ->check(CLI::IsMember({"table", "json", "markdown"}));
  cmd->add_option("--output", args->output,
                  "Also write the whole plan (gpuqual.plan-result/v1 JSON) to this file, atomically")
      ->type_name("FILE");
  cmd->callback([args, &selected] { selected = [args] { return run_plan(*args); }; });
}

}  // namespace gpuqual
