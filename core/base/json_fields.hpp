#pragma once
// Strict, path-tracking access to one JSON object, shared by every reader of gpuqual's
// documents (run records, baselines converted from YAML, verdicts). Each accessor throws
// InputError(file, "$.checks[2].metrics[0].median", problem) on a missing or mistyped field,
// on a non-finite or out-of-range number; `finish()` rejects fields nobody asked for, so a
// typo in a hand-edited file is an error instead of a silently ignored line.
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuqual {

class JsonObject {
 public:
  JsonObject(const nlohmann::json& j, std::string file, std::string path);

  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const;

  bool has(const std::string& key) const;
  std::string str(const std::string& key);  // required, may be ""
  std::string str_or(const std::string& key, std::string fallback);
  std::string nonempty_str(const std::string& key);
  double number(const std::string& key, double lo = -std::numeric_limits<double>::max(),
                double hi = std::numeric_limits<double>::max());
  std::optional<double> opt_number(const std::string& key, double lo = -std::numeric_limits<double>::max(),
                                   double hi = std::numeric_limits<double>::max());
  std::int64_t integer(const std::string& key, std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t hi = std::numeric_limits<std::int64_t>::max());
  std::optional<std::int64_t> opt_integer(const std::string& key,
                                          std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                                          std::int64_t hi = std::numeric_limits<std::int64_t>::max());
  bool boolean(const std::string& key);
  std::optional<bool> opt_boolean(const std::string& key);
  // Arrays and objects: returns the raw value after a type check; the caller descends with
  // child paths made by `child_path`.
  const nlohmann::json& array(const std::string& key);
  const nlohmann::json* opt_array(const std::string& key);
  const nlohmann::json& object(const std::string& key);
  const nlohmann::json* opt_object(const std::string& key);
  std::vector<double> number_array(const std::string& key, double lo = -std::numeric_limits<double>::max());
  std::vector<std::string> string_array(const std::string& key);

  std::string child_path(const std::string& key) const { return path_ + "." + key; }
  static std::string index_path(const std::string& array_path, std::size_t i) {
    return array_path + "[" + std::to_string(i) + "]";
  }
  // Throws for any key not read by an accessor (or named in `also_allowed`).
  void finish(std::initializer_list<const char*> also_allowed = {});

 private:
  const nlohmann::json& get(const std::string& key);
  const nlohmann::json* find(const std::string& key);
  const nlohmann::json& j_;
  std::string file_;
  std::string path_;
  std::set<std::string> seen_;
};

// Converts a JSON number to double, refusing non-finite values; `where` is the full path.
double finite_number(const nlohmann::json& v, const std::string& file, const std::string& where);

}  // namespace gpuqual
