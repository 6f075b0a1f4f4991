#include "core/compat/platform_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/base/yaml_tree.hpp"

namespace gpuqual {

namespace {

bool digits(const std::string& s, std::size_t from, std::size_t n) {
  if (s.size() < from + n) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from),
                     s.begin() + static_cast<std::ptrdiff_t>(from + n),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// YYYY-MM or YYYY-MM-DD, a month and day that exist.
bool valid_date(const std::string& d, bool allow_month) {
  const bool month = d.size() == 7 && digits(d, 0, 4) && d[4] == '-' && digits(d, 5, 2);
  if (allow_month && month) return std::chrono::month(static_cast<unsigned>(std::stoi(d.substr(5, 2)))).ok();
  return is_calendar_date(d);
}

std::string date_field(JsonObject& o, const std::string& key, bool allow_month) {
  const std::string d = o.nonempty_str(key);
  if (!valid_date(d, allow_month))
    o.fail(key,
           fmt::format("\"{}\" is not a date ({})", d, allow_month ? "YYYY-MM or YYYY-MM-DD" : "YYYY-MM-DD"));
  return d;
}

DottedVersion version_field(JsonObject& o, const std::string& key, std::string* text = nullptr) {
  const std::string v = o.nonempty_str(key);
  const auto parsed = DottedVersion::parse(v);
  if (!parsed) o.fail(key, fmt::format("\"{}\" is not a dotted version number", v));
  if (text) *text = v;
  return *parsed;
}

template <class Parse>
auto with_lines(const std::string& text, const std::string& origin, Parse parse) {
  const YamlTree tree = parse_yaml_tree(text, origin);
  try {
    return parse(tree.root);
  } catch (const InputError&) {
    rethrow_with_line(tree);
  }
}

// Every table opens with its schema, the date its sources were read and what they are.
template <class Table>
void read_header(JsonObject& o, const char* want, Table& t) {
  const std::string s = o.str("schema");
  if (s != want) o.fail("schema", fmt::format("unsupported schema \"{}\" (this gpuqual reads {})", s, want));
  t.read = date_field(o, "read", false);
  t.source = o.nonempty_str("source");
}

BranchKind parse_kind(JsonObject& o) {
  const std::string k = o.str("kind");
  for (BranchKind b :
       {BranchKind::long_term, BranchKind::production, BranchKind::new_feature, BranchKind::unconfirmed}) {
    if (to_string(b) == k) return b;
  }
  o.fail("kind", fmt::format("unknown kind \"{}\" (long-term, production, new-feature, unconfirmed)", k));
}

EolStatement eol_from(const nlohmann::json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  EolStatement e;
  int given = 0;
  if (o.has("date")) {
    e.date = date_field(o, "date", true);
    ++given;
  }
  if (o.has("listed")) {
    e.listed = o.boolean("listed");
    if (!e.listed) o.fail("listed", "write listed: true, or leave it out");
    ++given;
  }
  if (o.has("none")) {
    e.none = o.boolean("none");
    if (!e.none) o.fail("none", "write none: true, or leave it out");
    ++given;
  }
  if (given != 1) o.fail("", "give exactly one of date, listed or none");
  e.source = o.nonempty_str("source");
  o.finish();
  return e;
}

// Lower-cased words of a product name: letters and digits, split at anything else.
std::vector<std::string> name_words(const std::string& name) {
  std::vector<std::string> words(1);
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      words.back() += static_cast<char>(std::tolower(c));
    } else if (!words.back().empty()) {
      words.emplace_back();
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

ProductMinimum product_from(const nlohmann::json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  ProductMinimum p;
  p.name = o.nonempty_str("name");
  p.words = name_words(p.name);
  if (p.words.empty()) o.fail("name", "a product name needs a letter or digit");
  p.min_driver = version_field(o, "min_driver", &p.min_driver_text);
  p.source = o.nonempty_str("source");
  o.finish();
  return p;
}

void read_products(JsonObject& a, Architecture& arch, const std::string& file) {
  if (!a.has("products")) return;
  const nlohmann::json& products = a.array("products");
  for (std::size_t k = 0; k < products.size(); ++k) {
    arch.products.push_back(
        product_from(products[k], file, JsonObject::index_path(a.child_path("products"), k)));
    // A product minimum below the architecture's would never decide anything: a typo.
    if (arch.min_driver && arch.products.back().min_driver < *arch.min_driver)
      a.fail("products",
             fmt::format("{} minimum {} is below the architecture's {}", arch.products.back().name,
                         arch.products.back().min_driver_text, arch.min_driver_text));
  }
}

DriverBranchTable branches_from(const nlohmann::json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  DriverBranchTable t;
  read_header(o, "gpuqual.driver-branches/v1", t);
  const nlohmann::json& branches = o.array("branches");
  std::set<int> seen;
  for (std::size_t i = 0; i < branches.size(); ++i) {
    const std::string p = JsonObject::index_path(o.child_path("branches"), i);
    JsonObject b(branches[i], file, p);
    DriverBranch d;
    d.branch = static_cast<int>(b.integer("branch", 100, 9999));
    if (!seen.insert(d.branch).second) b.fail("branch", fmt::format("branch {} is listed twice", d.branch));
    d.kind = parse_kind(b);
    d.kind_confirmed = b.opt_boolean("kind_confirmed").value_or(true);
    if (b.has("first_release")) d.first_release = date_field(b, "first_release", false);
    if (b.has("native_cuda")) d.native_cuda = b.nonempty_str("native_cuda");
    if (!d.native_cuda.empty() && !DottedVersion::parse(d.native_cuda))
      b.fail("native_cuda", "not a dotted version number");
    const nlohmann::json& eol = b.array("end_of_life");
    for (std::size_t k = 0; k < eol.size(); ++k)
      d.end_of_life.push_back(eol_from(eol[k], file, JsonObject::index_path(b.child_path("end_of_life"), k)));
    d.note = b.str_or("note", "");
    b.finish();
    t.branches.push_back(std::move(d));
  }
  const nlohmann::json& archs = o.array("architectures");
  std::set<std::string> ccs;
  for (std::size_t i = 0; i < archs.size(); ++i) {
    const std::string p = JsonObject::index_path(o.child_path("architectures"), i);
    JsonObject a(archs[i], file, p);
    Architecture arch;
    arch.name = a.nonempty_str("name");
    arch.compute_capabilities = a.string_array("compute_capabilities");
    if (arch.compute_capabilities.empty())
      a.fail("compute_capabilities", "list at least one compute capability");
    for (const auto& cc : arch.compute_capabilities) {
      if (!DottedVersion::parse(cc))
        a.fail("compute_capabilities", fmt::format("\"{}\" is not a compute capability (e.g. 9.0)", cc));
      if (!ccs.insert(cc).second)
        a.fail("compute_capabilities", fmt::format("compute capability {} is listed twice", cc));
    }
    if (a.has("min_driver")) arch.min_driver = version_field(a, "min_driver", &arch.min_driver_text);
    if (a.has("last_branch")) arch.last_branch = static_cast<int>(a.integer("last_branch", 100, 9999));
    if (!arch.min_driver && !arch.last_branch) a.fail("", "give min_driver, last_branch or both");
    arch.source = a.nonempty_str("source");
    read_products(a, arch, file);
    a.finish();
    t.architectures.push_back(std::move(arch));
  }
  o.finish();
  t.origin = file;
  return t;
}

KubernetesRange range_from(const nlohmann::json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  KubernetesRange r;
  std::string lo, hi;
  r.min = version_field(o, "min", &lo);
  r.max = version_field(o, "max", &hi);
  if (r.max < r.min) o.fail("max", fmt::format("{} is below min {}", hi, lo));
  r.text = lo + "-" + hi;
  r.source = o.nonempty_str("source");
  o.finish();
  return r;
}

std::string major_of(const std::string& version) {
  const auto v = DottedVersion::parse(version);
  return v ? fmt::format("{}.{}", v->major(), v->minor()) : std::string();
}

GpuOperatorTable operator_from(const nlohmann::json& root, const std::string& file) {
  JsonObject o(root, file, "$");
  GpuOperatorTable t;
  read_header(o, "gpuqual.gpu-operator/v1", t);
  const nlohmann::json& releases = o.array("releases");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < releases.size(); ++i) {
    const std::string p = JsonObject::index_path(o.child_path("releases"), i);
    JsonObject r(releases[i], file, p);
    OperatorRelease rel;
    version_field(r, "version", &rel.version);
    if (!seen.insert(rel.version).second)
      r.fail("version", fmt::format("release {} is listed twice", rel.version));
    rel.date = date_field(r, "date", false);
    rel.default_driver = r.nonempty_str("default_driver");
    if (!parse_driver_version(rel.default_driver))
      r.fail("default_driver", fmt::format("\"{}\" is not a driver version", rel.default_driver));
    const nlohmann::json& k8s = r.array("kubernetes");
    if (k8s.empty()) r.fail("kubernetes", "list at least one Kubernetes range");
    for (std::size_t k = 0; k < k8s.size(); ++k)
      rel.kubernetes.push_back(
          range_from(k8s[k], file, JsonObject::index_path(r.child_path("kubernetes"), k)));
    rel.note = r.str_or("note", "");
    r.finish();
    t.releases.push_back(std::move(rel));
  }
  JsonObject l(o.object("lifecycle"), file, o.child_path("lifecycle"));
  t.as_of = date_field(l, "as_of", false);
  t.lifecycle_source = l.nonempty_str("source");
  t.supported = l.nonempty_str("supported");
  t.deprecated = l.nonempty_str("deprecated");
  for (const char* key : {"supported", "deprecated"}) {
    const auto v = DottedVersion::parse(key == std::string("supported") ? t.supported : t.deprecated);
    if (!v || v->parts.size() != 2) l.fail(key, "expected a major version YY.MM (e.g. 26.3)");
  }
  t.lifecycle_note = l.str_or("note", "");
  l.finish();
  o.finish();
  t.origin = file;
  return t;
}

}  // namespace

std::string_view to_string(BranchKind k) {
  switch (k) {
    case BranchKind::long_term:
      return "long-term";
    case BranchKind::production:
      return "production";
    case BranchKind::new_feature:
      return "new-feature";
    case BranchKind::unconfirmed:
      return "unconfirmed";
  }
  return "unconfirmed";
}

bool EolStatement::reached(const std::string& as_of) const {
  if (none) return false;
  if (listed) return true;
  const std::string from = date.size() == 7 ? date + "-01" : date;
  return as_of >= from;  // ISO dates compare as text
}

const DriverBranch* DriverBranchTable::find(int branch) const {
  for (const auto& b : branches) {
    if (b.branch == branch) return &b;
  }
  return nullptr;
}

const Architecture* DriverBranchTable::for_compute_capability(const std::string& cc) const {
  const auto want = DottedVersion::parse(cc);
  if (!want) return nullptr;
  for (const auto& a : architectures) {
    for (const auto& c : a.compute_capabilities) {
      if (DottedVersion::parse(c) == want) return &a;
    }
  }
  return nullptr;
}

bool ProductMinimum::matches(const std::string& gpu_product) const {
  const std::vector<std::string> have = name_words(gpu_product);
  return !words.empty() && std::search(have.begin(), have.end(), words.begin(), words.end()) != have.end();
}

const ProductMinimum* Architecture::product(const std::string& gpu_product) const {
  for (const auto& p : products) {
    if (p.matches(gpu_product)) return &p;
  }
  return nullptr;
}

const OperatorRelease* GpuOperatorTable::find(const std::string& version) const {
  const auto want = DottedVersion::parse(without_v(version));
  if (!want) return nullptr;
  for (const auto& r : releases) {
    if (DottedVersion::parse(r.version) == want) return &r;
  }
  return nullptr;
}

std::string GpuOperatorTable::support_state(const std::string& version) const {
  const std::string major = major_of(without_v(version));
  const auto v = DottedVersion::parse(major);
  if (!v) return "unknown";
  if (major == supported) return "supported";
  if (major == deprecated) return "deprecated";
  return *v < *DottedVersion::parse(deprecated) ? "end-of-life" : "unknown";
}

DriverBranchTable parse_driver_branches_yaml(const std::string& text, const std::string& origin) {
  return with_lines(text, origin, [&](const nlohmann::json& root) { return branches_from(root, origin); });
}
DriverBranchTable load_driver_branches(const std::string& path) {
  return parse_driver_branches_yaml(read_text_file(path, YamlLimits{}.max_bytes), path);
}
GpuOperatorTable parse_gpu_operator_yaml(const std::string& text, const std::string& origin) {
  return with_lines(text, origin, [&](const nlohmann::json& root) { return operator_from(root, origin); });
}
GpuOperatorTable load_gpu_operator_table(const std::string& path) {
  return parse_gpu_operator_yaml(read_text_file(path, YamlLimits{}.max_bytes), path);
}

bool is_calendar_date(const std::string& d) {
  if (!(d.size() == 10 && digits(d, 0, 4) && d[4] == '-' && digits(d, 5, 2) && d[7] == '-' &&
        digits(d, 8, 2)))
    return false;
  const std::chrono::year_month_day ymd{std::chrono::year(std::stoi(d.substr(0, 4))),
                                        std::chrono::month(static_cast<unsigned>(std::stoi(d.substr(5, 2)))),
                                        std::chrono::day(static_cast<unsigned>(std::stoi(d.substr(8, 2))))};
  return ymd.ok();
}

std::string without_v(const std::string& v) {
  return !v.empty() && (v[0] == 'v' || v[0] == 'V') ? v.substr(1) : v;
}

std::optional<int> driver_branch_of(const std::string& version) {
  std::size_t i = (!version.empty() && (version[0] == 'R' || version[0] == 'r')) ? 1 : 0;
  int n = 0, used = 0;
  while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i])) && used < 6) {
    n = n * 10 + (version[i] - '0');
    ++i;
    ++used;
  }
  if (used == 0) return std::nullopt;
  return n;
}

}  // namespace gpuqual
