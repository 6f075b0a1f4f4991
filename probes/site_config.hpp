#pragma once
// The site file: the node's own storage paths and network endpoints, which only the site knows
// (a ConfigMap mounted into the pod, containers/k8s/site-config.yaml; or a file an operator
// passes). One YAML (or JSON) document with a section per check:
//
//   storage:  { paths: [...], size_mib: 256, ... }      # docs/storage-network.md
//   network:  { endpoints: [...], timeout_s: 5, ... }
//
// A check's suite parameters name it with `site_file:`; the section's keys are laid over the
// suite's own parameters (the site's value wins).
#include <string>

#include <nlohmann/json.hpp>

namespace gpuqual::probes {

struct SiteParams {
  nlohmann::json params = nlohmann::json::object();  // suite params with the site section laid over
  std::string site_file;                              // "" when none was named
  bool site_file_present = false;
};

// `params` are the check's suite parameters; `section` "storage" or "network". A site file that
// does not exist is reported (site_file_present false), not an error: the site configured
// nothing. An unreadable or malformed one throws InputError naming the file and line.
SiteParams resolve_site_params(const nlohmann::json& params, const std::string& section, const std::string& origin);

}  // namespace gpuqual::probes
