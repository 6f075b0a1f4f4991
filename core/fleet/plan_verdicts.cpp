#include "core/fleet/plan_verdicts.hpp"

#include "core/base/input_error.hpp"

namespace gpuqual {

namespace {

Outcome as_counted(Outcome o, bool may_qualify) {
  return may_qualify || o == Outcome::fail ? o : Outcome::inconclusive;
}

}  // namespace

void add_node_outcomes(const Verdict& v, const std::string& origin, NodeOutcomes& out, bool may_qualify) {
  if (v.kind == "gate") {
    for (std::size_t i = 0; i < v.nodes.size(); ++i) {
      const Verdict& n = v.nodes[i];
      if (n.hostname.empty())
        throw InputError(origin, "$.nodes[" + std::to_string(i) + "].hostname", "no node name");
      out[n.hostname] = as_counted(n.outcome, may_qualify);
    }
    return;
  }
  if (v.hostname.empty())
    throw InputError(origin, "$.hostname", "no node name: the verdict cannot be matched to a node");
  out[v.hostname] = as_counted(v.outcome, may_qualify);
}

}  // namespace gpuqual
