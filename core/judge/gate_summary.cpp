#include "core/judge/gate_summary.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/base/plural.hpp"
#include "core/base/text_case.hpp"
#include "core/base/text_escape.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/record/hardware_class.hpp"

namespace gpuqual {

namespace {

// One line, controls shown as escapes (core/base/text_escape.hpp): record strings cannot forge lines.
std::string one_line(std::string_view s) { return terminal_line(s); }

// What the pool as a whole says after the counts: mixed versions, overridden classes, records
// that did not count.
std::string pool_notes(const Verdict& v, const GateCounts& c) {
  std::string out;
  // A pool on two stacks is inconclusive for that alone: say so (core/judge/gate.hpp).
  for (const auto& r : v.reasons) {
    if (r.find("versions mixed in the pool") != std::string::npos) {
      out += "; " + r.substr(0, r.find(" (give --target"));
      break;
    }
  }
  if (const std::size_t n = class_overrides_noted(v.reasons)) {
    out += fmt::format("; {} judged as an override class (--class)", plural(n, "node"));
  }
  if (c.duplicates) out += fmt::format("; {} ignored", plural(c.duplicates, "duplicate record"));
  return out;
}

}  // namespace

std::string gate_summary(const Verdict& v, const GateCounts& c) {
  const std::size_t total = c.failed + c.inconclusive + c.warned + c.passed + c.unreadable;
  std::vector<std::string> nodes;
  std::vector<std::string> failed_names;
  for (const auto& n : v.nodes) {
    // Each failed node with what it needs (docs/actions.md): "node-c: reset_gpu".
    if (n.outcome == Outcome::fail && failed_names.size() < 3)
      failed_names.push_back(
          n.action == NodeAction::none ? n.hostname : fmt::format("{}: {}", n.hostname, to_string(n.action)));
  }
  if (c.failed) {
    nodes.push_back(fmt::format("{} failed ({}{})", c.failed, fmt::join(failed_names, ", "),
                                c.failed > failed_names.size() ? ", ..." : ""));
  }
  if (c.unreadable) nodes.push_back(fmt::format("{} unreadable", c.unreadable));
  if (c.inconclusive) nodes.push_back(fmt::format("{} inconclusive", c.inconclusive));
  if (c.warned) nodes.push_back(fmt::format("{} warned", c.warned));
  nodes.push_back(fmt::format("{} passed", c.passed));

  std::size_t judged = 0, regressed = 0, unconfirmed = 0;
  const MetricRow* first_fail = nullptr;
  const MetricRow* first_warn = nullptr;
  for (const auto& m : v.metrics) {
    if (m.status == Status::skip) continue;
    ++judged;
    regressed += m.status == Status::fail;
    unconfirmed += m.status == Status::warn;
    if (m.status == Status::fail && !first_fail) first_fail = &m;
    if (m.status == Status::warn && !first_warn) first_warn = &m;
  }
  const MetricRow* worst = first_fail ? first_fail : first_warn;
  std::string pool;
  if (judged == 0) {
    pool = "pool: no metric judged";
  } else if (regressed || unconfirmed) {
    pool = fmt::format(
        "pool: {} of {} metrics {}{}", regressed ? regressed : unconfirmed, judged,
        regressed ? "regressed" : "moved, not confirmed",
        worst && worst->delta_pct ? fmt::format(" ({} {})", worst->metric, delta_vs_allowed(*worst)) : "");
  } else {
    pool = fmt::format("pool: {} metrics within the allowed drop", judged);
  }
  std::string line =
      fmt::format("gpuqual gate: {} {} ({}): {}; {}", to_upper(to_string(v.outcome)), plural(total, "node"),
                  v.hardware_class.empty() ? "no class" : v.hardware_class, fmt::join(nodes, ", "), pool);
  if (v.action != NodeAction::none) line += fmt::format("; action: {}", to_string(v.action));
  return one_line(line + pool_notes(v, c));
}

}  // namespace gpuqual
