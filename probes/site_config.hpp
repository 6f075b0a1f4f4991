#pragma once
// The site file: the node's own storage paths and network endpoints, which only the site knows
// (a ConfigMap mounted into the pod, containers/k8s/site.yaml; or a file an operator
// passes). One YAML (or JSON) document with a section per check:
//
//   storage:  { paths: [...], size_mib: 256, ... }      # docs/storage-network.md
//   network:  { endpoints: [...], timeout_s: 5, ... }
//
// A check's suite parameters name it with `site_file:`; the section's keys are laid over the
// suite's own parameters (the site's value wins).
#include <fmt/format.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/json_fields.hpp"
#include "core/record/record.hpp"

namespace gpuqual::probes {

struct SiteParams {
  nlohmann::json params = nlohmann::json::object();  // suite params with the site section laid over
  std::string site_file;                             // "" when none was named
  bool site_file_present = false;
};

// `params` are the check's suite parameters; `section` "storage" or "network". A site file that
// does not exist is reported (site_file_present false), not an error: the site configured
// nothing. An unreadable or malformed one throws InputError naming the file and line.
SiteParams resolve_site_params(const nlohmann::json& params, const std::string& section,
                               const std::string& origin);

// The entries of a site list (`paths`, `endpoints`), each read by `read(JsonObject&)` into
// something with a `name`; names must differ, since they name the check's metrics.
template <class Read>
auto read_named_entries(JsonObject& o, const char* key, const std::string& where, Read&& read) {
  std::vector<decltype(read(std::declval<JsonObject&>()))> out;
  std::set<std::string> names;
  if (const auto* list = o.opt_array(key)) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      JsonObject p((*list)[i], where, JsonObject::index_path(std::string("$.") + key, i));
      auto entry = read(p);
      if (!names.insert(entry.name).second)
        p.fail("name", fmt::format("'{}' is used twice (metric names must differ)", entry.name));
      out.push_back(std::move(entry));
    }
  }
  return out;
}

// The record says which site file the check read, and whether it was there.
inline void record_site_file(CheckResult& r, const std::string& site_file, bool present) {
  if (!site_file.empty()) r.attributes["site_file"] = site_file + (present ? "" : " (not present)");
}

}  // namespace gpuqual::probes
