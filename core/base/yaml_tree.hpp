#pragma once
// YAML text → nlohmann::json, remembering the source line of every key and list item, so a
// YAML document can be validated with the same strict JsonObject accessors as the JSON ones
// and still be reported as "file: line 14: $.metrics[2].tolerance: problem".
//
// Scalars are typed by the YAML 1.2 core schema, not yaml-cpp's lenient conversions: `yes`,
// `on`, `0x10` stay strings (so a mistyped field is an error, not a silent reinterpretation);
// quoted scalars and `!!str` are always strings; `.inf`/`.nan` become non-finite numbers,
// which the typed accessors reject.
#include <cstddef>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuqual {

struct YamlLimits {
  std::size_t max_bytes = 1u << 20;  // a baseline for an 8-GPU class is a few KiB
  int max_depth = 16;                // baselines are 4 levels deep
  std::size_t max_nodes = 100000;    // bounds alias expansion ("billion laughs")
};

struct YamlTree {
  nlohmann::json root;
  std::map<std::string, int> lines;  // "$.metrics[2].tolerance" → 1-based line

  // Line of `path`, or of its nearest ancestor that has one (a missing key is reported at the
  // line of the mapping that lacks it). 0 when unknown.
  int line_of(const std::string& path) const;
};

// Throws InputError(origin, "line L, column C", problem) for syntax errors, duplicate keys,
// non-string keys, unsupported tags, more than one document, or nesting/size over the limits.
YamlTree parse_yaml_tree(const std::string& text, const std::string& origin, const YamlLimits& limits = {});

// Rethrows an InputError whose `where` is a JSON path of `tree` as one that also names the line:
// "file: line 14: $.metrics[2].tolerance: problem". Call from a catch block.
[[noreturn]] void rethrow_with_line(const YamlTree& tree);

}  // namespace gpuqual
