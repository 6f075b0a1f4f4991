#include "core/base/json_fields.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/base/input_error.hpp"

namespace gpuqual {

namespace {
const char* type_name(const nlohmann::json& v) { return v.type_name(); }
}  // namespace

JsonObject::JsonObject(const nlohmann::json& j, std::string file, std::string path)
    : j_(j), file_(std::move(file)), path_(std::move(path)) {
  if (!j_.is_object())
    throw InputError(file_, path_, fmt::format("expected an object, found {}", type_name(j_)));
}

void JsonObject::fail(const std::string& field, const std::string& problem) const {
  throw InputError(file_, field.empty() ? path_ : child_path(field), problem);
}

bool JsonObject::has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }

const nlohmann::json* JsonObject::find(const std::string& key) {
  seen_.insert(key);
  auto it = j_.find(key);
  if (it == j_.end() || it->is_null()) return nullptr;
  return &*it;
}

const nlohmann::json& JsonObject::get(const std::string& key) {
  const nlohmann::json* v = find(key);
  if (!v) fail(key, "required field is missing");
  return *v;
}

std::string JsonObject::str(const std::string& key) {
  const auto& v = get(key);
  if (!v.is_string()) fail(key, fmt::format("expected a string, found {}", type_name(v)));
  return v.get<std::string>();
}

std::string JsonObject::str_or(const std::string& key, std::string fallback) {
  return find(key) ? str(key) : std::move(fallback);
}

std::string JsonObject::nonempty_str(const std::string& key) {
  std::string s = str(key);
  if (s.empty()) fail(key, "must not be empty");
  return s;
}

double finite_number(const nlohmann::json& v, const std::string& file, const std::string& where) {
  if (!v.is_number()) throw InputError(file, where, fmt::format("expected a number, found {}", type_name(v)));
  const double d = v.get<double>();
  if (!std::isfinite(d)) throw InputError(file, where, "number is not finite (NaN or Inf)");
  return d;
}

double JsonObject::number(const std::string& key, double lo, double hi) {
  const double d = finite_number(get(key), file_, child_path(key));
  if (d < lo || d > hi) fail(key, fmt::format("{} is out of range [{}, {}]", d, lo, hi));
  return d;
}

std::optional<double> JsonObject::opt_number(const std::string& key, double lo, double hi) {
  if (!find(key)) return std::nullopt;
  return number(key, lo, hi);
}

std::int64_t JsonObject::integer(const std::string& key, std::int64_t lo, std::int64_t hi) {
  const auto& v = get(key);
  if (!v.is_number_integer()) fail(key, fmt::format("expected an integer, found {}", type_name(v)));
  std::int64_t i = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(key, "integer too large");
    i = static_cast<std::int64_t>(u);
  } else {
    i = v.get<std::int64_t>();
  }
  if (i < lo || i > hi) fail(key, fmt::format("{} is out of range [{}, {}]", i, lo, hi));
  return i;
}

std::optional<std::int64_t> JsonObject::opt_integer(const std::string& key, std::int64_t lo,
                                                    std::int64_t hi) {
  if (!find(key)) return std::nullopt;
  return integer(key, lo, hi);
}

bool JsonObject::boolean(const std::string& key) {
  const auto& v = get(key);
  if (!v.is_boolean()) fail(key, fmt::format("expected true or false, found {}", type_name(v)));
  return v.get<bool>();
}

std::optional<bool> JsonObject::opt_boolean(const std::string& key) {
  if (!find(key)) return std::nullopt;
  return boolean(key);
}

const nlohmann::json& JsonObject::array(const std::string& key) {
  const auto& v = get(key);
  if (!v.is_array()) fail(key, fmt::format("expected an array, found {}", type_name(v)));
  return v;
}

const nlohmann::json* JsonObject::opt_array(const std::string& key) {
  if (!find(key)) return nullptr;
  return &array(key);
}

const nlohmann::json& JsonObject::object(const std::string& key) {
  const auto& v = get(key);
  if (!v.is_object()) fail(key, fmt::format("expected an object, found {}", type_name(v)));
  return v;
}

const nlohmann::json* JsonObject::opt_object(const std::string& key) {
  if (!find(key)) return nullptr;
  return &object(key);
}

std::vector<double> JsonObject::number_array(const std::string& key, double lo) {
  const auto& arr = array(key);
  std::vector<double> out;
  out.reserve(arr.size());
  const std::string p = child_path(key);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const double d = finite_number(arr[i], file_, index_path(p, i));
    if (d < lo) throw InputError(file_, index_path(p, i), fmt::format("{} is below the minimum {}", d, lo));
    out.push_back(d);
  }
  return out;
}

std::vector<std::string> JsonObject::string_array(const std::string& key) {
  const auto& arr = array(key);
  std::vector<std::string> out;
  out.reserve(arr.size());
  const std::string p = child_path(key);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_string()) {
      throw InputError(file_, index_path(p, i),
                       fmt::format("expected a string, found {}", type_name(arr[i])));
    }
    out.push_back(arr[i].get<std::string>());
  }
  return out;
}

void JsonObject::finish(std::initializer_list<const char*> also_allowed) {
  for (const char* k : also_allowed) seen_.insert(k);
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (!seen_.count(it.key())) fail(it.key(), "unknown field (typo, or a newer schema?)");
  }
}

}  // namespace gpuqual
