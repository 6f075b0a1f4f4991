#include "probes/site_config.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/base/yaml_tree.hpp"

namespace gpuqual::probes {

SiteParams resolve_site_params(const nlohmann::json& params, const std::string& section,
                               const std::string& origin) {
  SiteParams out;
  if (!params.is_object()) throw InputError(origin, "$", "the parameters must be a mapping");
  out.params = params;
  if (!params.contains("site_file")) return out;
  if (!params.at("site_file").is_string() || params.at("site_file").get<std::string>().empty())
    throw InputError(origin, "$.site_file", "must be a file path");
  out.site_file = params.at("site_file").get<std::string>();
  out.params.erase("site_file");
  struct stat st {};
  if (::stat(out.site_file.c_str(), &st) != 0 && errno == ENOENT) return out;
  out.site_file_present = true;
  const YamlTree tree = parse_yaml_tree(read_text_file(out.site_file, 1u << 20), out.site_file);
  if (!tree.root.is_object())
    throw InputError(out.site_file, "$", "the site file must be a mapping (storage:, network:)");
  for (const auto& [key, value] : tree.root.items()) {
    if (key != "storage" && key != "network")
      throw InputError(out.site_file, fmt::format("line {}: $.{}", tree.line_of("$." + key), key),
                       "unknown section (storage, network)");
  }
  if (!tree.root.contains(section) || tree.root.at(section).is_null()) return out;
  const auto& sec = tree.root.at(section);
  if (!sec.is_object())
    throw InputError(out.site_file, fmt::format("line {}: $.{}", tree.line_of("$." + section), section),
                     "must be a mapping");
  for (const auto& [key, value] : sec.items()) out.params[key] = value;
  return out;
}

}  // namespace gpuqual::probes
