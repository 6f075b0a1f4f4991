#include "core/fleet/matrix_io.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/base/text_escape.hpp"
#include "core/base/yaml_tree.hpp"

namespace gpuqual {

namespace {

using ordered = nlohmann::ordered_json;

// A matrix of a 100,000-node fleet lists every node once per row it ran on: tens of MiB.
constexpr std::size_t kMaxMatrixBytes = 256u << 20;

ordered row_json(const MatrixRow& r) {
  ordered j;
  j["hardware_class"] = r.hardware_class;
  j["gpu_product"] = r.gpu_product;
  j["compute_capability"] = r.compute_capability;
  j["state"] = std::string(to_string(r.state));
  j["why"] = r.why;
  ordered stack = ordered::object();
  for (const auto& [n, v] : r.stack) stack[n] = v;
  j["stack"] = stack;
  j["images"] = r.images;
  j["nodes_passed"] = r.nodes_passed;
  j["nodes_failed"] = r.nodes_failed;
  j["runs"] = {{"passed", r.runs_passed}, {"failed", r.runs_failed}, {"inconclusive", r.runs_inconclusive}};
  j["first_seen"] = r.first_seen;
  j["last_seen"] = r.last_seen;
  return j;
}

ordered matrix_json(const Matrix& m) {
  ordered j;
  j["schema"] = m.schema;
  j["min_nodes"] = m.min_nodes;
  j["records"] = m.records;
  j["unreadable"] = m.unreadable;
  j["rows"] = ordered::array();
  for (const auto& r : m.rows) j["rows"].push_back(row_json(r));
  return j;
}

// Every string double-quoted: "12.8" stays a string, a node named "yes" stays a name.
void emit(YAML::Emitter& out, const ordered& j) {
  if (j.is_object()) {
    out << YAML::BeginMap;
    for (auto it = j.begin(); it != j.end(); ++it) {
      out << YAML::Key << it.key() << YAML::Value;
      emit(out, it.value());
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    if (j.empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      return;
    }
    out << YAML::BeginSeq;
    for (const auto& v : j) emit(out, v);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    out << YAML::DoubleQuoted << j.get<std::string>();
  } else {
    out << j.dump();
  }
}

// A Markdown cell of record strings (class, stack, images): escape_markdown (core/base/text_escape.hpp),
// the items one per line.
std::string cell(const std::vector<std::string>& items) {
  std::vector<std::string> shown;
  for (const auto& i : items) shown.push_back(escape_markdown(i));
  const std::string out = fmt::format("{}", fmt::join(shown, "<br>"));
  return out.empty() ? "—" : out;
}
std::string cell(const std::string& s) { return cell(std::vector<std::string>{s}); }

MatrixRow row_from_json(const nlohmann::json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  MatrixRow r;
  r.hardware_class = o.nonempty_str("hardware_class");
  r.gpu_product = o.str("gpu_product");
  r.compute_capability = o.str("compute_capability");
  const std::string state = o.str("state");
  const auto s = parse_matrix_state(state);
  if (!s)
    o.fail("state", fmt::format("unknown state \"{}\" (known-good, known-bad, mixed, unqualified)", state));
  r.state = *s;
  r.why = o.str("why");
  const nlohmann::json& stack = o.object("stack");
  for (auto it = stack.begin(); it != stack.end(); ++it) {
    // A hand-edited key ("kernal") would make a row no target can match, silently.
    if (!is_matrix_component(it.key()))
      throw InputError(file, o.child_path("stack") + "." + it.key(),
                       fmt::format("unknown component \"{}\" (known: {})", it.key(),
                                   fmt::join(matrix_component_names(), ", ")));
    if (!it->is_string() || it->get<std::string>().empty())
      throw InputError(file, o.child_path("stack") + "." + it.key(), "expected a non-empty version string");
    r.stack.emplace_back(it.key(), it->get<std::string>());
  }
  order_stack(r.stack);
  r.images = o.string_array("images");
  r.nodes_passed = o.string_array("nodes_passed");
  r.nodes_failed = o.string_array("nodes_failed");
  JsonObject runs(o.object("runs"), file, o.child_path("runs"));
  r.runs_passed = static_cast<int>(runs.integer("passed", 0, 1 << 30));
  r.runs_failed = static_cast<int>(runs.integer("failed", 0, 1 << 30));
  r.runs_inconclusive = static_cast<int>(runs.integer("inconclusive", 0, 1 << 30));
  runs.finish();
  r.first_seen = o.str("first_seen");
  r.last_seen = o.str("last_seen");
  o.finish();
  return r;
}

Matrix matrix_from_json(const nlohmann::json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  Matrix m;
  m.schema = o.str("schema");
  if (m.schema != kMatrixSchema)
    o.fail("schema",
           fmt::format("unsupported schema \"{}\" (this gpuqual reads {})", m.schema, kMatrixSchema));
  m.min_nodes = static_cast<int>(o.integer("min_nodes", 1, 1 << 20));
  m.records = static_cast<std::size_t>(o.integer("records", 0));
  m.unreadable = static_cast<std::size_t>(o.integer("unreadable", 0));
  const nlohmann::json& rows = o.array("rows");
  for (std::size_t i = 0; i < rows.size(); ++i)
    m.rows.push_back(row_from_json(rows[i], file, JsonObject::index_path(o.child_path("rows"), i)));
  o.finish();
  m.origin = file;
  return m;
}

}  // namespace

std::string matrix_to_json(const Matrix& m) { return matrix_json(m).dump(2) + "\n"; }

std::string matrix_to_yaml(const Matrix& m) {
  YAML::Emitter out;
  out << YAML::Comment("gpuqual matrix build: the known-good compatibility matrix (docs/matrix.md)");
  out << YAML::Newline;
  emit(out, matrix_json(m));
  return std::string(out.c_str()) + "\n";
}

std::string matrix_to_markdown(const Matrix& m) {
  std::string out = fmt::format(
      "## Compatibility matrix\n\n{} records judged ({} unreadable), known-good needs {} "
      "passing nodes and no failure.\n\n",
      m.records, m.unreadable, m.min_nodes);
  out +=
      "| class | state | stack | images | nodes passed | nodes failed | runs (pass/fail/inconclusive) | "
      "first seen | "
      "last seen | why |\n";
  out += "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : m.rows) {
    std::vector<std::string> stack;
    for (const auto& [n, v] : r.stack) stack.push_back(fmt::format("{} {}", n, v));
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {}/{}/{} | {} | {} | {} |\n", cell(r.hardware_class),
                       to_string(r.state), cell(stack), cell(r.images), r.nodes_passed.size(),
                       r.nodes_failed.size(), r.runs_passed, r.runs_failed, r.runs_inconclusive,
                       cell(r.first_seen), cell(r.last_seen), cell(r.why));
  }
  return out;
}

Matrix parse_matrix(const std::string& text, const std::string& origin) {
  if (origin.ends_with(".json"))
    return matrix_from_json(parse_json_text(text, origin, JsonLimits{kMaxMatrixBytes, 16}), origin);
  YamlLimits limits;
  limits.max_bytes = kMaxMatrixBytes;
  limits.max_nodes = 50'000'000;
  const YamlTree tree = parse_yaml_tree(text, origin, limits);
  try {
    return matrix_from_json(tree.root, origin);
  } catch (const InputError&) {
    rethrow_with_line(tree);
  }
}

Matrix load_matrix(const std::string& path) {
  return parse_matrix(read_text_file(path, kMaxMatrixBytes), path);
}

}  // namespace gpuqual
