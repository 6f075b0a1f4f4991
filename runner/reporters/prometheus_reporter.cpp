// Prometheus node-exporter textfile format (written atomically by report_options.cpp, so the
// textfile collector never reads half a file). Every series carries node, class, driver and
// cuda labels; statuses are state sets (one series per possible value, 1 for the current one),
// so `gpuqual_check_status{status="fail"} == 1` alerts without knowing which values exist.
#include <fmt/format.h>

#include <map>
#include <set>

#include "core/base/text_escape.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

namespace {

// Label values: backslash, double quote and newline are escaped (exposition format spec,
// https://prometheus.io/docs/instrumenting/exposition_formats/), after escape_controls
// (core/base/text_escape.hpp): a value must be UTF-8 (node-exporter's parser rejects the whole file
// otherwise), and a control or bidi character is shown as an escape, as in every other format.
std::string label_value(std::string_view raw) {
  std::string out;
  for (char c : escape_controls(raw, true)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

using Labels = std::vector<std::pair<std::string, std::string>>;

class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}

  void add(const Labels& labels, double value) {
    std::string l;
    for (const auto& [k, v] : labels)
      l += fmt::format("{}{}=\"{}\"", l.empty() ? "" : ",", k, label_value(v));
    // A repeated label set would make node-exporter reject the whole file: keep the first.
    if (!seen_.insert(l).second) return;
    lines_ += fmt::format("{}{{{}}} {}\n", name_, l, value);
  }

  void write(std::string& out) const {
    if (lines_.empty()) return;
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name_, help_, name_);
    out += lines_;
  }

 private:
  std::string name_, help_, lines_;
  std::set<std::string> seen_;
};

Labels with(Labels base, std::initializer_list<std::pair<std::string, std::string>> more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

Labels with_gpu(Labels base, const std::optional<int>& gpu) {
  if (gpu) base.emplace_back("gpu", std::to_string(*gpu));  // node-scope series carry no gpu label
  return base;
}

constexpr Status kStatuses[] = {Status::pass, Status::warn, Status::fail, Status::skip, Status::error};
constexpr Outcome kOutcomes[] = {Outcome::pass, Outcome::warn, Outcome::fail, Outcome::inconclusive};
constexpr NodeAction kNodeActions[] = {
    NodeAction::none,      NodeAction::watch,  NodeAction::restart_workload, NodeAction::drain,
    NodeAction::reset_gpu, NodeAction::reboot, NodeAction::service};

struct Families {
  Family verdict{"gpuqual_verdict",
                 "Outcome of the last gpuqual judgement of this node (1 for the current outcome)."};
  Family action{"gpuqual_action",
                "What the last judgement asks for this node (1 for the current action; docs/actions.md)."};
  Family action_level{"gpuqual_action_level",
                      "The current action's rank: 0 none, 1 watch, 2 restart_workload, 3 drain, 4 reset_gpu, "
                      "5 reboot, 6 service (alert on >= 3)."};
  Family exit_code{"gpuqual_exit_code",
                   "Exit code of the last gpuqual judgement (0 pass, 1 fail, 2 inconclusive)."};
  Family gpu_status{"gpuqual_gpu_status",
                    "Roll-up status of one GPU in the last judgement (1 for the current status)."};
  Family check_status{"gpuqual_check_status",
                      "Status of one check on one GPU in the last judgement (1 for the current status)."};
  Family value{"gpuqual_metric_value", "Observed median of a metric, in the unit named by the unit label."};
  Family expected{"gpuqual_metric_expected",
                  "Baseline value of a metric, in the unit named by the unit label."};
  Family allowed{"gpuqual_metric_allowed_drop_ratio",
                 "Relative drop a metric may show before it fails (0.05 = 5 %)."};
  Family findings{"gpuqual_findings", "Findings of the last judgement by code, GPU and judged status."};
  Family stack{"gpuqual_stack_component",
               "One stack component of the judged node (BIOS, NIC and GPU firmware, driver, toolkit, "
               "Kubernetes, platform) "
               "as labels: component, value, state (read or unread); always 1."};
};

void add_verdict(Families& f, const Verdict& v) {
  const Labels base{{"node", v.hostname},
                    {"class", v.hardware_class},
                    {"driver", v.driver_version},
                    {"cuda", v.cuda_driver_version}};
  for (Outcome o : kOutcomes) {
    f.verdict.add(with(base, {{"kind", v.kind}, {"outcome", std::string(to_string(o))}}),
                  v.outcome == o ? 1 : 0);
  }
  for (NodeAction a : kNodeActions) {
    f.action.add(with(base, {{"kind", v.kind}, {"action", std::string(to_string(a))}}),
                 v.action == a ? 1 : 0);
  }
  f.action_level.add(with(base, {{"kind", v.kind}}), static_cast<int>(v.action));
  f.exit_code.add(with(base, {{"kind", v.kind}}), v.exit_code);
  for (const auto& [gpu, status] : v.per_gpu) {
    for (Status s : kStatuses) {
      f.gpu_status.add(with(base, {{"gpu", std::to_string(gpu)}, {"status", std::string(to_string(s))}}),
                       status == s ? 1 : 0);
    }
  }
  for (const auto& c : v.checks) {
    Labels l = with_gpu(with(base, {{"check", c.check}}), c.gpu);
    if (!c.mig_device.empty()) l.emplace_back("mig_device", c.mig_device);  // a slice's row
    for (Status s : kStatuses)
      f.check_status.add(with(l, {{"status", std::string(to_string(s))}}), c.status == s ? 1 : 0);
  }
  for (const auto& m : v.metrics) {
    Labels l =
        with(with_gpu(with(base, {{"check", m.check}, {"metric", m.metric}}), m.gpu), {{"unit", m.unit}});
    // Slices of one GPU share its gpu label: the MIG device tells their series apart (docs/mig.md).
    if (!m.mig_device.empty()) l.emplace_back("mig_device", m.mig_device);
    if (m.observed) f.value.add(l, *m.observed);
    if (m.expected) {
      f.expected.add(l, *m.expected);
      f.allowed.add(l, m.allowed_drop_pct / 100);
    }
  }
  std::map<Labels, int> finding_counts;
  for (const auto& r : v.findings) {
    ++finding_counts[with(with_gpu(with(base, {{"check", r.check}, {"code", r.finding.code}}), r.finding.gpu),
                          {{"status", std::string(to_string(r.status))}})];
  }
  for (const auto& [labels, n] : finding_counts) f.findings.add(labels, n);
  // An info series per component (the kube_node_info idiom): join on node to label any series
  // with the stack, e.g. `gpuqual_verdict * on(node) group_left(value)
  // gpuqual_stack_component{component="bios.version"}`.
  for (const auto& c : v.stack) {
    f.stack.add(with(base, {{"component", c.name},
                            {"value", c.fact.value.value_or("")},
                            {"state", c.fact.known() ? "read" : "unread"}}),
                1);
  }
}

}  // namespace

std::string render_prometheus(const Verdict& v) {
  Families f;
  if (v.nodes.empty()) {
    add_verdict(f, v);
  } else {
    for (const auto& n : v.nodes) add_verdict(f, n);  // gate: one set of series per node
  }
  std::string out;
  for (const Family* fam : {&f.verdict, &f.action, &f.action_level, &f.exit_code, &f.gpu_status,
                            &f.check_status, &f.value, &f.expected, &f.allowed, &f.findings, &f.stack}) {
    fam->write(out);
  }
  return out;
}

}  // namespace gpuqual
