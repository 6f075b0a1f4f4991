#pragma once
// Where `gpuqual plan` gets the cluster and the verdicts: the three `kubectl get ... -o json`
// documents from files or `-` (stdin), or from kubectl itself (`--kubectl`); the verdicts from
// gate/compare/diff JSON, or from run records judged here like `gpuqual gate` would
// (`--baseline auto`). Everything unreadable or malformed is an InputError (exit 3).
#include <string>
#include <vector>

#include "core/plan_cluster.hpp"
#include "core/plan_verdicts.hpp"

namespace gpuqual {

struct ClusterSources {
  std::string nodes, pods, pdbs;   // paths or "-"
  bool kubectl = false;            // run `<kubectl_command> get ... -o json` instead
  std::string kubectl_command = "kubectl";
};

Cluster read_cluster(const ClusterSources& sources);

// `paths`: verdict JSON files, run records, or directories of either (*.json inside).
NodeOutcomes read_verdicts(const std::vector<std::string>& paths, const std::string& baselines_dir_flag);

}  // namespace gpuqual
