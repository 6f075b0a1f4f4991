#include "runner/commands/plan_inputs.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/fleet/plan_cluster_json.hpp"
#include "core/judge/gate_stream.hpp"
#include "core/record/record.hpp"
#include "core/verdict/verdict_json.hpp"

namespace gpuqual {

namespace {

// `kubectl get pods -A -o json` of a large cluster is hundreds of MiB (every pod's
// managedFields); the record reader's 256 MiB would refuse it.
constexpr JsonLimits kClusterLimits{std::size_t{4} << 30, 64};

// The document's text; the cluster readers parse it (plan_cluster_json.hpp).
std::string read_document(const std::string& path) {
  if (path != "-") return read_text_file(path, kClusterLimits.max_bytes);
  return std::string{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
}

// Runs `command` through the shell (it may carry its own flags: "kubectl --context prod") and
// returns what it printed; a failure to start or a non-zero exit is an input error naming it.
std::string run_kubectl(const std::string& command, const std::string& what) {
  const std::string cmd = fmt::format("{} get {} -o json", command, what);
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) throw InputError(cmd, "", "could not start it");
  std::string text;
  char buf[1 << 16];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
  const int status = ::pclose(pipe);
  if (status != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    throw InputError(cmd, "", code >= 0 ? fmt::format("exited with {}", code) : "ended by a signal");
  }
  return text;
}

}  // namespace

Cluster read_cluster(const ClusterSources& s, CurrentNodes* states) {
  Cluster c;
  auto nodes_of = [&](const std::string& text, const std::string& origin) {
    if (states) *states = parse_current_nodes(text, origin, kClusterLimits);
    return read_nodes(text, origin, kClusterLimits);
  };
  if (s.kubectl) {
    c.nodes = nodes_of(run_kubectl(s.kubectl_command, "nodes"), s.kubectl_command + " get nodes");
    c.pods = read_pods(run_kubectl(s.kubectl_command, "pods --all-namespaces"),
                       s.kubectl_command + " get pods", kClusterLimits);
    c.pdbs = read_pdbs(run_kubectl(s.kubectl_command, "poddisruptionbudgets --all-namespaces"),
                       s.kubectl_command + " get pdb", kClusterLimits);
    return c;
  }
  int stdin_uses = (s.nodes == "-") + (s.pods == "-") + (s.pdbs == "-");
  if (stdin_uses > 1) throw InputError("-", "", "only one of --nodes, --pods, --pdbs can read stdin");
  auto origin = [](const std::string& p) { return p == "-" ? std::string("<stdin>") : p; };
  c.nodes = nodes_of(read_document(s.nodes), origin(s.nodes));
  c.pods = read_pods(read_document(s.pods), origin(s.pods), kClusterLimits);
  c.pdbs = read_pdbs(read_document(s.pdbs), origin(s.pdbs), kClusterLimits);
  return c;
}

NodeOutcomes read_verdicts(const std::vector<std::string>& paths, const std::string& baselines_dir_flag,
                           const GateOptions& options, NodeClasses* classes) {
  NodeOutcomes out;
  const bool files_may_qualify = !options.freshness.max_age_s && options.consecutive <= 1;
  std::vector<std::string> records;
  for (const std::string& path : expand_record_paths(paths)) {
    const nlohmann::json j = read_json_file(path);
    const auto schema = j.is_object() && j.contains("schema") && j["schema"].is_string()
                            ? j["schema"].get<std::string>()
                            : "";
    if (schema == kVerdictSchema) {
      const Verdict v = verdict_from_json(j, path);
      add_node_outcomes(v, path, out, files_may_qualify);
      if (classes) add_node_classes(v, *classes);
    } else if (schema == kRunSchema) {
      records.push_back(path);
    } else {
      throw InputError(path, "$.schema",
                       fmt::format("expected {} (gate, compare or diff --format json) or a {} record",
                                   kVerdictSchema, kRunSchema));
    }
  }
  if (!records.empty()) {
    // Judged one node at a time, as gate would: each node's own verdict decides, the pool's does not.
    AutoBaselines baselines(baselines_dir(baselines_dir_flag));
    const Verdict gate = gate_records(records, baselines, options);
    add_node_outcomes(gate, "run records", out);
    if (classes) add_node_classes(gate, *classes);
  }
  return out;
}

}  // namespace gpuqual
