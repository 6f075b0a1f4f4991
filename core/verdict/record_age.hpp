#pragma once
// Whether a record still speaks for its node now (docs/gate.md, "Time"):
//
//   --max-age   a record whose run ended (else started) longer ago than this does not qualify
//               its node: "last qualified 31 d ago". A record dated in the future, or with no
//               parseable time, cannot show its age and does not qualify either.
//   stale       a record taken before the node's current boot (its boot_id against the Node's
//               status.nodeInfo.bootID), or under another kubelet (nodeInfo.kubeletVersion),
//               kernel (nodeInfo.kernelVersion) or driver (GFD's nvidia.com/cuda.driver-version.*
//               labels) than the node runs now does not qualify it. A fact the record does not
//               hold cannot show that it is current: that is stale too.
//
// Neither makes a failing record pass or a passing one fail: they withhold a qualification (a
// pass or warn becomes inconclusive with the reason; a fail stays a fail). compare, diff, gate
// and plan use these; the node condition GpuQualified (docs/kubernetes.md) can too.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/json_input.hpp"
#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// What the Kubernetes Node object says of the node now. "" where the Node does not say.
struct CurrentNode {
  std::string name;             // metadata.name
  std::string boot_id;          // status.nodeInfo.bootID
  std::string kubelet_version;  // status.nodeInfo.kubeletVersion
  std::string kernel_version;   // status.nodeInfo.kernelVersion
  std::string driver_version;  // nvidia.com/cuda.driver-version.full (or its parts, or the old cuda.driver.*)
};

using CurrentNodes = std::map<std::string, CurrentNode>;

// A Node (`kubectl get node NAME -o json`) or a NodeList (`kubectl get nodes -o json`), by name.
// Not JSON, not a Node, a Node without a name: InputError naming the file.
CurrentNodes read_current_nodes(const std::string& path);
// The same from text (tests; `origin` names it in errors).
CurrentNodes parse_current_nodes(const std::string& text, const std::string& origin,
                                 const JsonLimits& limits = {});
// The driver version GFD labels a node with: nvidia.com/cuda.driver-version.full, else its
// .major/.minor/.revision, else the deprecated cuda.driver.major/.minor/.rev that older GFD wrote
// alone (https://github.com/NVIDIA/k8s-device-plugin/blob/main/docs/gpu-feature-discovery/README.md). ""
// without them.
std::string driver_from_labels(const std::map<std::string, std::string>& labels);

// The reasons `record` does not speak for the node as `node` describes it now; empty: current.
std::vector<std::string> stale_reasons(const RunRecord& record, const CurrentNode& node);

// Why `record` is too old for --max-age `max_age_s` at `now_ms` (or cannot show its age);
// nullopt: young enough.
std::optional<std::string> age_problem(const RunRecord& record, double max_age_s, std::int64_t now_ms);

// "31 d", "5 h", "12 min", "40 s": an age as the reasons say it.
std::string format_age(double seconds);

// Now, Unix ms: $GPUQUAL_NOW (RFC 3339, for tests and replays) when set, else the clock. A
// GPUQUAL_NOW that does not parse is an InputError.
std::int64_t now_ms();

// What a command judges freshness by: --max-age, the moment it calls now, and the Nodes of
// --node-file (null: not given).
struct Freshness {
  std::optional<double> max_age_s;
  std::int64_t now_ms = 0;
  std::shared_ptr<const CurrentNodes> nodes;  // shared: every copy of a command's options sees one file
  bool active() const { return max_age_s.has_value() || nodes != nullptr; }
};

// Every reason `record` of node `node_name` does not qualify it now: too old, stale against its
// Node, or (with --node-file) a node the file does not hold.
std::vector<std::string> freshness_problems(const RunRecord& record, const std::string& node_name,
                                            const Freshness& f);

// A pass or warn verdict becomes inconclusive, `reasons` first (the summary says why); a fail or
// inconclusive verdict keeps its outcome and gets the reasons as notes.
void withhold_qualification(Verdict& v, const std::vector<std::string>& reasons);

}  // namespace gpuqual
