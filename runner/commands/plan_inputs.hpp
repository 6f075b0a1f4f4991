#pragma once
// Where `gpuqual plan` gets the cluster and the verdicts: the three `kubectl get ... -o json`
// documents from files or `-` (stdin), or from kubectl itself (`--kubectl`); the verdicts from
// gate/compare/diff JSON, or from run records judged here like `gpuqual gate` would
// (`--baseline auto`). Everything unreadable or malformed is an InputError (exit 3).
#include <string>
#include <vector>

#include "core/fleet/plan_cluster.hpp"
#include "core/fleet/plan_verdicts.hpp"
#include "core/judge/gate.hpp"
#include "core/verdict/record_age.hpp"

namespace gpuqual {

struct ClusterSources {
  std::string nodes, pods, pdbs;  // paths or "-"
  bool kubectl = false;           // run `<kubectl_command> get ... -o json` instead
  std::string kubectl_command = "kubectl";
};

// `states`, when given: each Node's boot, kubelet, kernel and driver from the same nodes
// document, for the staleness of run records among the verdicts (core/verdict/record_age.hpp).
Cluster read_cluster(const ClusterSources& sources, CurrentNodes* states = nullptr);

// `paths`: verdict JSON files, run records, or directories of either (*.json inside). Run
// records are judged as gate judges them with `options` (--max-age, the Nodes, --consecutive);
// a verdict file under --max-age or --consecutive cannot qualify a node (plan_verdicts.hpp).
// `classes`, when given: the class each verdict states for its node (apply_record_classes).
NodeOutcomes read_verdicts(const std::vector<std::string>& paths, const std::string& baselines_dir_flag,
                           const GateOptions& options = {}, NodeClasses* classes = nullptr);

}  // namespace gpuqual
