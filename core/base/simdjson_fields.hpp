#pragma once
// Reading untrusted JSON with simdjson where nlohmann's DOM is too slow (thousands of records in
// `gate`, `baseline build`, `matrix build`; the cluster's Node and Pod lists in `plan`):
// JsonObject's twin (json_fields.hpp) with the same accessors, the same messages and the same
// JSON paths, and the parse step with read_json_file's limits and messages (json_input.hpp).
// Include it only in the readers that use it: simdjson.h is large.
#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"

namespace gpuqual::simdjson_fields {

using simdjson::dom::element;
using simdjson::dom::element_type;

inline const char* type_name(const element& e) {
  switch (e.type()) {
    case element_type::ARRAY:
      return "array";
    case element_type::OBJECT:
      return "object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return "number";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "boolean";
    case element_type::NULL_VALUE:
      return "null";
  }
  return "unknown";
}

inline bool is_number(const element& e) {
  const auto t = e.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

inline double as_double(const element& e) {
  switch (e.type()) {
    case element_type::INT64:
      return static_cast<double>(int64_t(e));
    case element_type::UINT64:
      return static_cast<double>(uint64_t(e));
    default:
      return double(e);
  }
}

inline std::string index_path(const std::string& array_path, std::size_t i) {
  return fmt::format("{}[{}]", array_path, i);
}

// Where an object sits in the record ($.checks[2].metrics[0]), spelled out only for an error:
// building the path of every object of every record cost more than a tenth of the read.
struct Where {
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
  const Where* parent = nullptr;  // null: the root, `root`
  const char* key = "";           // the parent's field
  std::size_t index = kNoIndex;   // and the element of that array field
  // The root's path: "$", or where an object read on its own stands ("$.findings[3]" of a
  // verdict); it must outlive the Where.
  std::string_view root = "$";
  std::string str() const {
    if (!parent) return std::string(root);
    std::string out = parent->str() + "." + key;
    return index == kNoIndex ? out : index_path(out, index);
  }
};

// `where()` builds the JSON path only when there is an error to report: paths for every sample
// of every metric would cost more than parsing them.
template <class Where>
double finite(const element& v, const std::string& file, Where where) {
  if (!is_number(v))
    throw InputError(file, where(), fmt::format("expected a number, found {}", type_name(v)));
  const double d = as_double(v);
  if (!std::isfinite(d)) throw InputError(file, where(), "number is not finite (NaN or Inf)");
  return d;
}

// The simdjson twin of JsonObject (json_fields.hpp): the same accessors, the same messages, the
// same paths. A key given twice in one object is refused ("duplicate key"), as the YAML reader
// refuses it in a baseline (core/base/yaml_tree.hpp): which copy counts would otherwise be the
// parser's choice (nlohmann keeps the last, others the first), and a record or a cluster file
// that says two things of one field says nothing reliable. Every key is looked up (finish()
// refuses the others), so the lookup is where a duplicate shows, at no extra cost.
class Obj {
 public:
  Obj(const element& e, const std::string& file, const Where& where) : file_(file), where_(where) {
    if (e.type() != element_type::OBJECT) {
      throw InputError(file_, where_.str(), fmt::format("expected an object, found {}", type_name(e)));
    }
    const simdjson::dom::object obj(e);
    fields_.reserve(obj.size());  // one allocation per object (growing cost a third of the read)
    for (auto field : obj) fields_.push_back({field.key, field.value, false, tag_of(field.key)});
  }

  // Keys are string_views so that a literal's length is known where it is written: a lookup
  // computed strlen of every key at run time (1.5 % of matrix build).
  [[noreturn]] void fail(std::string_view field, const std::string& problem) const {
    throw InputError(file_, field.empty() ? where_.str() : child_path(field), problem);
  }
  std::string child_path(std::string_view key) const { return where_.str() + "." + std::string(key); }
  const std::string& file() const { return file_; }
  // The object at `key` of this one, or its element `index` when `key` is an array.
  Where at(const char* key, std::size_t index = Where::kNoIndex) const { return Where{&where_, key, index}; }

  std::string str(std::string_view key) {
    const element& v = get(key);
    if (v.type() != element_type::STRING) fail(key, fmt::format("expected a string, found {}", type_name(v)));
    return std::string(std::string_view(v));
  }
  std::string str_or(std::string_view key, std::string fallback) {
    return find(key) ? str(key) : std::move(fallback);
  }
  bool has(std::string_view key) { return find(key) != nullptr; }
  std::string nonempty_str(std::string_view key) {
    std::string s = str(key);
    if (s.empty()) fail(key, "must not be empty");
    return s;
  }
  double number(std::string_view key, double lo = -std::numeric_limits<double>::max(),
                double hi = std::numeric_limits<double>::max()) {
    const double d = finite(get(key), file_, [&] { return child_path(key); });
    if (d < lo || d > hi) fail(key, fmt::format("{} is out of range [{}, {}]", d, lo, hi));
    return d;
  }
  std::optional<double> opt_number(std::string_view key, double lo = -std::numeric_limits<double>::max(),
                                   double hi = std::numeric_limits<double>::max()) {
    if (!find(key)) return std::nullopt;
    return number(key, lo, hi);
  }
  std::int64_t integer(std::string_view key, std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t hi = std::numeric_limits<std::int64_t>::max()) {
    const element& v = get(key);
    std::int64_t i = 0;
    if (v.type() == element_type::UINT64) {
      const std::uint64_t u = uint64_t(v);
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(key, "integer too large");
      i = static_cast<std::int64_t>(u);
    } else if (v.type() == element_type::INT64) {
      i = int64_t(v);
    } else {
      fail(key, fmt::format("expected an integer, found {}", type_name(v)));
    }
    if (i < lo || i > hi) fail(key, fmt::format("{} is out of range [{}, {}]", i, lo, hi));
    return i;
  }
  std::optional<std::int64_t> opt_integer(std::string_view key,
                                          std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                                          std::int64_t hi = std::numeric_limits<std::int64_t>::max()) {
    if (!find(key)) return std::nullopt;
    return integer(key, lo, hi);
  }
  bool boolean(std::string_view key) {
    const element& v = get(key);
    if (v.type() != element_type::BOOL)
      fail(key, fmt::format("expected true or false, found {}", type_name(v)));
    return bool(v);
  }
  std::optional<bool> opt_boolean(std::string_view key) {
    if (!find(key)) return std::nullopt;
    return boolean(key);
  }
  simdjson::dom::array array(std::string_view key) {
    const element& v = get(key);
    if (v.type() != element_type::ARRAY) fail(key, fmt::format("expected an array, found {}", type_name(v)));
    return simdjson::dom::array(v);
  }
  const element& object(std::string_view key) {
    const element& v = get(key);
    if (v.type() != element_type::OBJECT)
      fail(key, fmt::format("expected an object, found {}", type_name(v)));
    return v;
  }
  std::vector<double> number_array(std::string_view key, double lo) {
    const simdjson::dom::array arr = array(key);
    std::vector<double> out;
    out.reserve(arr.size());
    std::size_t i = 0;
    for (element e : arr) {
      const double d = finite(e, file_, [&] { return index_path(child_path(key), i); });
      if (d < lo)
        throw InputError(file_, index_path(child_path(key), i),
                         fmt::format("{} is below the minimum {}", d, lo));
      out.push_back(d);
      ++i;
    }
    return out;
  }
  std::vector<std::string> string_array(std::string_view key) {
    const simdjson::dom::array arr = array(key);
    std::vector<std::string> out;
    out.reserve(arr.size());
    std::size_t i = 0;
    for (element e : arr) {
      if (e.type() != element_type::STRING) {
        throw InputError(file_, index_path(child_path(key), i),
                         fmt::format("expected a string, found {}", type_name(e)));
      }
      out.emplace_back(std::string_view(e));
      ++i;
    }
    return out;
  }
  // Every (key, string value) of an object field, or the same error as record_json.cpp for a
  // non-string value; a key given twice is refused.
  std::map<std::string, std::string> string_map(std::string_view key, const char* what) {
    const element& obj = object(key);
    std::map<std::string, std::string> out;
    std::string first_bad;
    std::set<std::string> keys;
    for (auto field : simdjson::dom::object(obj)) {
      std::string k(field.key);
      if (!keys.insert(k).second) fail(std::string(key) + "." + k, fmt::format("duplicate key \"{}\"", k));
      if (field.value.type() != element_type::STRING) {
        if (first_bad.empty() || k < first_bad) first_bad = k;
        continue;
      }
      out[k] = std::string(std::string_view(field.value));
    }
    if (!first_bad.empty()) fail(std::string(key) + "." + first_bad, what);
    return out;
  }
  // Fields nobody asked for are an error; nlohmann iterates keys sorted, so report the first in
  // that order to give the same message.
  void finish() {
    const Field* first = nullptr;
    for (const auto& f : fields_) {
      if (!f.seen && (!first || f.key < first->key)) first = &f;
    }
    if (first) fail(std::string(first->key), "unknown field (typo, or a newer schema?)");
  }

 private:
  struct Field {
    std::string_view key;
    element value;
    bool seen;
    std::uint32_t tag;
  };
  // Length, first and last byte folded into one word: a lookup compares that before the bytes,
  // which then are compared in line (keys are short; a memcmp call for each match was 4 %).
  static std::uint32_t tag_of(std::string_view k) {
    if (k.empty()) return 0;
    return (static_cast<std::uint32_t>(k.size()) << 16) ^
           (static_cast<std::uint32_t>(static_cast<unsigned char>(k.front())) << 8) ^
           static_cast<unsigned char>(k.back());
  }
  static bool same_bytes(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  // Every field is scanned, comparing tags first, so a second copy of the key is found on the
  // way: refused. (Starting from where the last field was found does not pay: records are written
  // with sorted keys and read in the struct's order; measured.)
  const element* find(std::string_view key) {
    const std::uint32_t tag = tag_of(key);
    const element* found = nullptr;
    for (auto& f : fields_) {
      if (f.tag == tag && same_bytes(f.key, key)) {
        if (found) fail(key, fmt::format("duplicate key \"{}\"", key));
        f.seen = true;
        found = &f.value;
      }
    }
    if (!found || found->type() == element_type::NULL_VALUE) return nullptr;
    return found;
  }
  const element& get(std::string_view key) {
    const element* v = find(key);
    if (!v) fail(key, "required field is missing");
    return *v;
  }

  const std::string& file_;
  Where where_;
  std::vector<Field> fields_;
};

// A parser that keeps its buffers from document to document, refusing what read_json_file
// refuses with the same messages: over the size limit, empty, malformed, nested deeper than
// max_depth. `text` must have simdjson::SIMDJSON_PADDING bytes of capacity after its end
// (read_text_file_into leaves them; pad() makes them); it is parsed in place and must outlive
// the returned element.
class Parser {
 public:
  explicit Parser(const JsonLimits& limits) : limits_(limits) {
    // nlohmann's guard refuses values deeper than max_depth below the root; simdjson counts the
    // root as a level. (No set_max_capacity: simdjson 3.0's clamps it to 32 bytes. The size
    // limit is checked before parsing, as read_json_file does.)
    if (auto err = parser_.allocate(64 * 1024, static_cast<std::size_t>(limits.max_depth) + 1)) {
      throw std::runtime_error(
          fmt::format("simdjson: cannot allocate a parser: {}", simdjson::error_message(err)));
    }
  }
  const JsonLimits& limits() const { return limits_; }

  element parse(const std::string& text, const std::string& origin) {
    if (text.size() > limits_.max_bytes) {
      throw InputError(
          origin, "",
          fmt::format("input is {} bytes, over the limit of {} bytes", text.size(), limits_.max_bytes));
    }
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
      throw InputError(origin, "", "input is empty");
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
      throw std::logic_error("simdjson_fields::Parser::parse: text without simdjson's padding");
    }
    element root;
    if (auto err = parser_.parse(simdjson::padded_string_view(text, text.capacity())).get(root)) {
      if (err == simdjson::DEPTH_ERROR)
        throw InputError(origin, "", fmt::format("nesting deeper than {} levels", limits_.max_depth));
      throw InputError(origin, "", fmt::format("malformed JSON: {}", simdjson::error_message(err)));
    }
    return root;
  }
  // Gives `text` the capacity parse() needs behind it.
  static void pad(std::string& text) { text.reserve(text.size() + simdjson::SIMDJSON_PADDING); }

 private:
  simdjson::dom::parser parser_;
  JsonLimits limits_;
};

}  // namespace gpuqual::simdjson_fields
