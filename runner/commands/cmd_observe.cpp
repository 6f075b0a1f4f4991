// `gpuqual observe`: the canary pool against a control pool under real load, from the series
// dcgm-exporter and the workloads feed a Prometheus-compatible server (docs/observe.md; the
// judging is core/judge/observe.hpp, the client probes/telemetry/prometheus_api.hpp).
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/judge/observe.hpp"
#include "core/judge/observe_policy.hpp"
#include "core/rules/health_severity.hpp"
#include "runner/cli/command.hpp"
#include "runner/commands/observe_inputs.hpp"
#include "runner/commands/observe_wait.hpp"
#include "runner/reporters/report_options.hpp"

namespace gpuqual {

namespace {

struct ObserveArgs {
  std::string prometheus;
  std::string canary, control;
  std::string canary_label, control_label;
  std::string nodes;
  std::string window;  // "" = the policy's
  std::string end;
  std::string step;  // "" = the policy's scrape interval
  std::string policy;
  std::string timeout = "30s";
  std::size_t max_series = 20000;
  bool wait = false;  // the window starts now; judge once it has ended
  ReportOptions report;
};

// --wait: Prometheus answers before the window is waited for (else the failed data, judged as
// any failed query is, at once), then the wait; exit 2 when a signal ended it.
std::optional<int> wait_for_end(const ObserveArgs& a, const probes::PrometheusClient& client,
                                const observe::ObservePolicy& policy, const ObservePools& pools,
                                const WaitPlan& plan, const observe::ObserveOptions& opts) {
  if (auto failed = check_prometheus(client, policy, pools, plan.window))
    return emit_reports(observe::judge_observation(*failed, policy, opts), a.report);
  if (wait_for_window(plan) == WaitEnd::stopped) return kExitInconclusive;
  return std::nullopt;
}

int run_observe(const ObserveArgs& a) {
  // Every input is checked before --wait waits: a typo found two hours later costs the soak.
  if (a.wait && !a.end.empty())
    throw InputError("--wait", "",
                     "--wait judges the window that starts now; --end one that ended: give one");
  const observe::ObservePolicy policy = observe::load_observe_policy(a.policy);
  const ObservePools pools = resolve_pools(a.canary, a.control, a.canary_label, a.control_label, a.nodes);
  const std::string window = a.window.empty() ? policy.window : a.window;
  if (window.empty()) throw InputError("--window", "", "give a window (or `window:` in the policy)");
  const std::string step = a.step.empty() ? fmt::format("{:g}s", policy.scrape_interval_s) : a.step;
  WaitPlan plan;
  const observe::Window w = a.wait ? window_from_now(window, step) : resolve_window(window, a.end, step);
  const auto timeout = observe::parse_duration_s(a.timeout);
  if (!timeout) throw InputError("--timeout", "", fmt::format("\"{}\" is not a duration", a.timeout));
  const probes::PrometheusClient client{a.prometheus, *timeout, a.max_series};
  const observe::ObserveOptions opts{&judging_severity_table(), a.prometheus, a.report.strict};
  if (a.wait) {
    plan.window = w;
    plan.source = a.window.empty() ? "the policy's window" : "--window";
    // The scrape at the window's end lands in Prometheus within a scrape interval; judging
    // after it keeps the verdict the one `--end` gives later from the same data.
    plan.settle_s = policy.scrape_interval_s;
    if (auto code = wait_for_end(a, client, policy, pools, plan, opts)) return *code;
  }
  const observe::ObserveData data = gather(client, policy, pools, w);
  return emit_reports(observe::judge_observation(data, policy, opts), a.report);
}

void add_pool_options(CLI::App* cmd, ObserveArgs& a) {
  cmd->add_option("--canary", a.canary, "The canary pool: nodes as dcgm-exporter's node label names them")
      ->type_name("NODE[,NODE...]");
  cmd->add_option("--control", a.control, "The control pool: nodes that did not get the change")
      ->type_name("NODE[,NODE...]");
  cmd->add_option("--canary-label", a.canary_label, "The canary pool: the nodes of --nodes with this label")
      ->type_name("KEY=VALUE");
  cmd->add_option("--control-label", a.control_label,
                  "The control pool: the nodes of --nodes with this label")
      ->type_name("KEY=VALUE");
  cmd->add_option("--nodes", a.nodes,
                  "Node list (kubectl get nodes -o json): selects the pools by label, and each node's "
                  "allocatable nvidia.com/gpu is the GPUs it must report")
      ->type_name("FILE");
}

}  // namespace

void add_observe_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<ObserveArgs>();
  CLI::App* cmd =
      app.add_subcommand("observe",
                         "Judge the canary pool against a control pool under real load from "
                         "Prometheus: GPU faults (Xids, ECC, remaps, PCIe, NVLink, clock events), "
                         "load, completeness and the workloads' own metrics");
  add_pool_options(cmd, *args);
  cmd->add_option("--window", args->window, "How long to look back from --end (default: the policy's window)")
      ->type_name("DURATION");
  cmd->add_flag("--wait", args->wait,
                "Start the window now and wait it out (--window, else the policy's window), then judge "
                "it as --end <start + window> would, after one scrape interval for the last scrape. "
                "Flags, policy, pools and one request to Prometheus are checked first (exit 3; exit 2 "
                "at once when Prometheus does not answer). SIGTERM/SIGINT while waiting: exit 2, "
                "nothing judged. Not with --end");
  cmd->add_option("--end", args->end, "End of the window, RFC 3339 or Unix seconds (default: now)")
      ->type_name("TIME");
  cmd->add_option("--step", args->step, "Range query step (default: the policy's scrape_interval)")
      ->type_name("DURATION");
  cmd->add_option("--policy", args->policy, "The observe policy (gpuqual.observe/v1 YAML)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--timeout", args->timeout, "Per query, the server's evaluation and the transfer")
      ->type_name("DURATION")
      ->capture_default_str();
  cmd->add_option("--max-series", args->max_series, "A query answering more series is an error")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10'000'000}))
      ->capture_default_str();
  add_report_options(cmd, args->report);
  // --prometheus names the server here (docs/observe.md's command line); the node-exporter textfile the
  // other judging commands write with --prometheus FILE is --prometheus-textfile FILE.
  cmd->remove_option(cmd->get_option("--prometheus"));
  cmd->add_option("--prometheus-textfile", args->report.prometheus,
                  "Also write a node-exporter textfile (.prom) to FILE, atomically")
      ->type_name("FILE");
  // -o keeps the verdict for the pipeline's next step (the rollout's record of why it widened),
  // whatever stdout shows.
  cmd->add_option("-o,--output", args->report.json,
                  "Also write the verdict (gpuqual.verdict/v1 JSON) to FILE, atomically")
      ->type_name("FILE");
  cmd->add_option("--prometheus", args->prometheus,
                  "Prometheus HTTP API base URL (Thanos, Mimir, VictoriaMetrics)")
      ->required()
      ->type_name("URL");
  cmd->callback([args, &selected] { selected = [args] { return run_observe(*args); }; });
}

}  // namespace gpuqual
