// Suite YAML → Suite. The YAML is turned into JSON with the line of every key remembered
// (core/base/yaml_tree), then read with the strict JsonObject accessors, so a suite error
// reads like every other input error: "suites/canary.yaml: line 12: $.checks[2].check: problem".
#include <fmt/format.h>

#include <map>
#include <regex>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/base/yaml_tree.hpp"
#include "suites/check.hpp"
#include "suites/check_catalog.hpp"
#include "suites/suite.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {

using nlohmann::json;

double default_timeout_s(double budget_s) { return 2 * budget_s + 30; }

namespace {

constexpr const char* kDurationVar = "${duration}";

bool mentions_duration(const json& j) {
  if (j.is_string()) return j.get<std::string>().find(kDurationVar) != std::string::npos;
  if (j.is_structured()) {
    for (const auto& v : j) {
      if (mentions_duration(v)) return true;
    }
  }
  return false;
}

// Every known check name, for the "unknown check" message.
std::string known_check_names() {
  std::set<std::string> names;
  for (const auto& e : check_catalog()) names.emplace(e.name);
  for (const CheckInfo* info : CheckRegistry::instance().all(true)) names.insert(info->name);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

class SuiteReader {
 public:
  SuiteReader(std::string origin, const SuiteOptions& options)
      : origin_(std::move(origin)), options_(options) {}

  Suite read(const json& root) {
    JsonObject o(root, origin_, "$");
    Suite s;
    s.origin = origin_;
    s.name = o.nonempty_str("name");
    static const std::regex kName("[a-z0-9][a-z0-9_-]*");
    if (!std::regex_match(s.name, kName)) {
      o.fail("name",
             fmt::format("\"{}\" is not a suite name (lower-case letters, digits, '-' and '_')", s.name));
    }
    s.description = o.str_or("description", "");

    s.takes_duration = mentions_duration(root);
    if (o.has("default_duration")) {
      default_duration_ = duration_value(root.at("default_duration"), "$.default_duration");
    }
    if (s.takes_duration) {
      if (options_.duration_s) {
        duration_ = *options_.duration_s;
      } else if (default_duration_) {
        duration_ = *default_duration_;
      } else {
        o.fail("default_duration",
               "the suite uses ${duration} but has no default_duration (e.g. default_duration: 1h)");
      }
      s.duration_s = duration_;
    } else if (options_.duration_s) {
      throw InputError(origin_, "",
                       fmt::format("--duration was given, but suite \"{}\" uses no ${{duration}}; "
                                   "it applies to suites such as burnin",
                                   s.name));
    } else if (default_duration_) {
      o.fail("default_duration", "default_duration is set but no value uses ${duration}");
    }

    if (o.has("budget_s")) s.budget_s = seconds_value(root.at("budget_s"), "$.budget_s");

    const json& checks = o.array("checks");
    if (checks.empty()) o.fail("checks", "a suite needs at least one check");
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const std::string path = JsonObject::index_path("$.checks", i);
      SuiteCheck c = read_check(checks[i], path);
      if (auto [it, fresh] = seen.emplace(c.check, i); !fresh) {
        throw InputError(
            origin_, path + ".check",
            fmt::format("check \"{}\" is listed twice (first as $.checks[{}]); a run records one "
                        "result per check name",
                        c.check, it->second));
      }
      s.checks.push_back(std::move(c));
    }
    if (s.budget_s) {
      double sum = 0;
      for (const auto& c : s.checks) sum += c.budget_s;
      if (sum > *s.budget_s + 1e-9) {
        o.fail("budget_s",
               fmt::format("the checks' budgets add up to {} s, over the suite's budget_s of {} s", sum,
                           *s.budget_s));
      }
    }
    o.finish({"default_duration", "budget_s"});
    return s;
  }

 private:
  SuiteCheck read_check(const json& j, const std::string& path) {
    JsonObject o(j, origin_, path);
    SuiteCheck c;
    c.check = o.nonempty_str("check");
    if (check_availability(c.check) == CheckAvailability::unknown) {
      o.fail("check", fmt::format("unknown check \"{}\" (gpuqual checks: {})", c.check, known_check_names()));
    }
    if (o.has("budget_s")) c.budget_s = seconds_value(j.at("budget_s"), path + ".budget_s");
    c.timeout_s = o.has("timeout_s") ? seconds_value(j.at("timeout_s"), path + ".timeout_s")
                                     : default_timeout_s(c.budget_s);
    if (c.timeout_s < c.budget_s) {
      o.fail("timeout_s", fmt::format("timeout_s {} s is shorter than budget_s {} s (the timeout is the hard "
                                      "limit, the budget the soft one)",
                                      c.timeout_s, c.budget_s));
    }
    if (const json* params = o.opt_object("params")) {
      c.params = *params;
      substitute(c.params, path + ".params");
    }
    c.optional = o.opt_boolean("optional").value_or(false);
    o.finish({"budget_s", "timeout_s"});
    return c;
  }

  // A positive number of seconds, or "${duration}" / "${duration} + N".
  double seconds_value(const json& v, const std::string& where) {
    double value = 0;
    if (v.is_number()) {
      value = finite_number(v, origin_, where);
    } else if (v.is_string()) {
      static const std::regex kExpr(R"(\$\{duration\}\s*(\+\s*([0-9]+(\.[0-9]+)?))?)");
      std::smatch m;
      const std::string text = v.get<std::string>();
      if (!std::regex_match(text, m, kExpr)) {
        throw InputError(origin_, where,
                         fmt::format("expected seconds or \"${{duration}} + N\", found \"{}\"", text));
      }
      value = duration_ + (m[2].matched ? std::stod(m[2].str()) : 0.0);
    } else {
      throw InputError(origin_, where, fmt::format("expected seconds (a number), found {}", v.type_name()));
    }
    if (!(value > 0)) throw InputError(origin_, where, fmt::format("must be more than 0 s, found {}", value));
    return value;
  }

  double duration_value(const json& v, const std::string& where) {
    if (v.is_number()) {
      const double d = finite_number(v, origin_, where);
      if (d <= 0) throw InputError(origin_, where, "must be more than 0 s");
      return d;
    }
    if (!v.is_string())
      throw InputError(origin_, where,
                       fmt::format("expected a duration such as 2h, found {}", v.type_name()));
    auto d = parse_duration_s(v.get<std::string>());
    if (!d || *d <= 0) {
      throw InputError(
          origin_, where,
          fmt::format("\"{}\" is not a duration (e.g. 90s, 15m, 2h, 1h30m)", v.get<std::string>()));
    }
    return *d;
  }

  // ${duration} as a whole string value becomes the number of seconds; any other ${...} is an
  // error rather than a literal that a check would misread.
  void substitute(json& j, const std::string& path) {
    if (j.is_string()) {
      const std::string s = j.get<std::string>();
      if (s.find("${") == std::string::npos) return;
      if (s != kDurationVar) {
        throw InputError(origin_, path,
                         fmt::format("\"{}\": the only variable is ${{duration}}, and it must be the "
                                     "whole value",
                                     s));
      }
      j = duration_;
    } else if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) substitute(it.value(), path + "." + it.key());
    } else if (j.is_array()) {
      for (std::size_t i = 0; i < j.size(); ++i) substitute(j[i], JsonObject::index_path(path, i));
    }
  }

  std::string origin_;
  const SuiteOptions& options_;
  std::optional<double> default_duration_;
  double duration_ = 0;
};

}  // namespace

Suite parse_suite_yaml(const std::string& text, const std::string& origin, const SuiteOptions& options) {
  YamlTree tree = parse_yaml_tree(text, origin);
  try {
    Suite suite = SuiteReader(origin, options).read(tree.root);
    for (std::size_t i = 0; i < suite.checks.size(); ++i) {
      suite.checks[i].line = tree.line_of(JsonObject::index_path("$.checks", i));
    }
    return suite;
  } catch (const InputError&) {
    rethrow_with_line(tree);
  }
}

Suite load_suite(const std::string& path, const SuiteOptions& options) {
  return parse_suite_yaml(read_text_file(path, 1u << 20), path, options);
}

}  // namespace gpuqual
