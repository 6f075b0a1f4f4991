#include "core/verdict/dra_skips.hpp"

#include <fmt/format.h>

namespace gpuqual {

std::optional<std::string> no_dra_refusal(const CheckResult& check) {
  auto api = check.attributes.find("resource_api");
  if (api == check.attributes.end() || (api->second != "absent" && api->second != "present"))
    return std::string("no_dra, but the check does not say whether the cluster serves resource.k8s.io");
  auto path = check.attributes.find("gpu_path");
  if (path == check.attributes.end()) return std::string("no_dra, but the check names no gpu_path");
  if (path->second == "dra" || path->second == "both")
    return fmt::format("no_dra, but the check's gpu_path is {}", path->second);
  return std::nullopt;
}

}  // namespace gpuqual
