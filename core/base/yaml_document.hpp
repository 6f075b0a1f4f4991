#pragma once
// What every reader of a gpuqual YAML document (baseline, target, plan policy) does around its
// own fields: the schema check first (a newer file fails on its version, not on the first key it
// added), and the conversion run on the YAML tree so that an error at a JSON path also names the
// line ("file: line 14: $.metrics[2].tolerance: problem").
#include <fmt/format.h>

#include <string>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/yaml_tree.hpp"

namespace gpuqual {

// Reads `schema`; anything but `expected` is an InputError at $.schema.
inline std::string read_schema(JsonObject& o, const char* expected) {
  std::string schema = o.str("schema");
  if (schema != expected)
    o.fail("schema", fmt::format("unsupported schema \"{}\" (this gpuqual reads {})", schema, expected));
  return schema;
}

// `from_json(root, origin)` on the YAML tree of `text`, with line numbers in its InputErrors.
template <class FromJson>
auto from_yaml_document(const std::string& text, const std::string& origin, FromJson&& from_json) {
  const YamlTree tree = parse_yaml_tree(text, origin);
  try {
    return from_json(tree.root, origin);
  } catch (const InputError&) {
    rethrow_with_line(tree);
  }
}

}  // namespace gpuqual
