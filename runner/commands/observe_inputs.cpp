#include "runner/commands/observe_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <future>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/base/utc_time.hpp"
#include "core/fleet/plan_cluster_json.hpp"
#include "core/verdict/record_age.hpp"

namespace gpuqual {

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= text.size()) {
    const std::size_t j = std::min(text.find(',', i), text.size());
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::vector<std::string> by_label(const std::vector<ClusterNode>& nodes, const std::string& selector,
                                  const std::string& flag) {
  const std::size_t eq = selector.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(flag, "", "expected KEY=VALUE, got \"" + selector + "\"");
  const std::string key = selector.substr(0, eq), value = selector.substr(eq + 1);
  std::vector<std::string> out;
  for (const ClusterNode& n : nodes) {
    auto it = n.labels.find(key);
    if (it != n.labels.end() && it->second == value) out.push_back(n.name);
  }
  if (out.empty()) throw InputError(flag, "", "no node of the Node list carries " + selector);
  return out;
}

// The window and the pools, before any query's answer.
observe::ObserveData empty_data(const ObservePools& pools, const observe::Window& w) {
  observe::ObserveData d;
  d.window = w;
  d.canary = pools.canary;
  d.control = pools.control;
  d.expected_gpus = pools.expected_gpus;
  return d;
}

}  // namespace

ObservePools resolve_pools(const std::string& canary, const std::string& control,
                           const std::string& canary_label, const std::string& control_label,
                           const std::string& nodes_file) {
  ObservePools pools;
  std::vector<ClusterNode> nodes;
  if (!nodes_file.empty()) {
    nodes = read_nodes(read_text_file(nodes_file, JsonLimits{}.max_bytes), nodes_file, JsonLimits{});
  } else if (!canary_label.empty() || !control_label.empty()) {
    throw InputError("--canary-label/--control-label", "", "need --nodes FILE (kubectl get nodes -o json)");
  }
  pools.canary = canary_label.empty() ? split_list(canary) : by_label(nodes, canary_label, "--canary-label");
  pools.control =
      control_label.empty() ? split_list(control) : by_label(nodes, control_label, "--control-label");
  if (pools.canary.empty()) throw InputError("--canary", "", "name at least one canary node");
  if (pools.control.empty()) throw InputError("--control", "", "name at least one control node");
  const std::set<std::string> canary_set(pools.canary.begin(), pools.canary.end());
  for (const std::string& n : pools.control) {
    if (canary_set.count(n)) throw InputError("--control", "", fmt::format("{} is in both pools", n));
  }
  for (const ClusterNode& n : nodes) {
    if (n.gpus > 0) pools.expected_gpus[n.name] = n.gpus;
  }
  return pools;
}

observe::Window resolve_window(const std::string& window_text, const std::string& end_text,
                               const std::string& step_text) {
  observe::Window w;
  const auto length = observe::parse_duration_s(window_text);
  if (!length)
    throw InputError("--window", "", fmt::format("\"{}\" is not a duration (like 2h, 90m)", window_text));
  const auto step = observe::parse_duration_s(step_text);
  if (!step) throw InputError("--step", "", fmt::format("\"{}\" is not a duration (like 15s)", step_text));
  double end = static_cast<double>(now_ms()) / 1000.0;
  if (!end_text.empty()) {
    double unix_s = 0;
    auto [ptr, ec] = std::from_chars(end_text.data(), end_text.data() + end_text.size(), unix_s);
    if (ec == std::errc() && ptr == end_text.data() + end_text.size()) {
      end = unix_s;
    } else if (auto ms = parse_rfc3339_ms(end_text)) {
      end = static_cast<double>(*ms) / 1000.0;
    } else {
      throw InputError("--end", "", fmt::format("\"{}\" is neither RFC 3339 nor Unix seconds", end_text));
    }
  }
  if (*length / *step > 11000)  // Prometheus refuses more than 11,000 points per series
    throw InputError(
        "--step", "",
        fmt::format("{} is too fine for a {} window (11,000 points at most)", step_text, window_text));
  w.end = std::floor(end);
  w.start = w.end - *length;
  w.step = *step;
  return w;
}

std::map<std::string, std::string> field_queries(const observe::ObservePolicy& p, const ObservePools& pools) {
  std::vector<std::string> names;
  for (const auto* pool : {&pools.canary, &pools.control}) {
    for (const std::string& n : *pool) names.push_back(probes::promql_regex_literal(n));
  }
  const std::string matcher = fmt::format("{{{}=~\"{}\"}}", p.node_label, fmt::join(names, "|"));
  std::map<std::string, std::string> q;
  using namespace observe::field;
  q[kUtil] = std::string(kUtil) + matcher;
  for (const char* f : kFaultFields) q[f] = std::string(f) + matcher;
  q[kClocksEventReasons] =
      fmt::format("{0}{2} or {1}{2}", kClocksEventReasons, kClocksEventReasonsOld, matcher);
  q[kUtilAge] = fmt::format("timestamp({}{})", kUtil, matcher);
  return q;
}

observe::ObserveData gather(const probes::PrometheusClient& client, const observe::ObservePolicy& p,
                            const ObservePools& pools, const observe::Window& w) {
  observe::ObserveData d = empty_data(pools, w);
  std::vector<std::pair<std::string, std::future<observe::QueryResult>>> fields, workloads;
  for (const auto& [name, query] : field_queries(p, pools)) {
    fields.emplace_back(
        name, std::async(std::launch::async, [&client, q = query, w] { return query_range(client, q, w); }));
  }
  for (const observe::WorkloadPolicy& wl : p.workloads) {
    const std::string query = wl.query;
    workloads.emplace_back(wl.name, std::async(std::launch::async, [&client, query, w] {
                             return query_range(client, query, w);
                           }));
  }
  for (auto& [name, f] : fields) d.fields[name] = f.get();
  for (auto& [name, f] : workloads) d.workloads[name] = f.get();
  return d;
}

std::optional<observe::ObserveData> check_prometheus(const probes::PrometheusClient& client,
                                                     const observe::ObservePolicy& p,
                                                     const ObservePools& pools, const observe::Window& w) {
  const auto queries = field_queries(p, pools);
  const double now = std::floor(static_cast<double>(now_ms()) / 1000.0);
  const observe::QueryResult probe =
      query_range(client, queries.at(observe::field::kUtil), observe::Window{now - w.step, now, w.step});
  if (probe.error.empty()) return std::nullopt;
  observe::ObserveData d = empty_data(pools, w);
  for (const auto& [name, query] : queries) d.fields[name] = observe::QueryResult{query, probe.error, {}};
  for (const observe::WorkloadPolicy& wl : p.workloads)
    d.workloads[wl.name] = observe::QueryResult{wl.query, probe.error, {}};
  return d;
}

}  // namespace gpuqual
