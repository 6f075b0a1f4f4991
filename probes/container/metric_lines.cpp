#include "probes/container/metric_lines.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/base/units.hpp"
#include "core/record/metric_summary.hpp"

namespace gpuqual::probes {

namespace {

// The probe's own metrics (probe_config.cpp); an image may not overwrite them.
const std::set<std::string, std::less<>> kReserved = {"start_latency", "total_time"};

bool valid_name(std::string_view n) {
  if (n.empty() || n.size() > 64 || n.front() == '.' || n.back() == '.') return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')) return false;
  return n.find("..") == std::string_view::npos;
}

// A short, printable excerpt of the offending line for the finding.
std::string excerpt(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 120)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return line.size() > 120 ? out + "…" : out;
}

struct Pending {
  std::string unit;
  Direction direction = Direction::higher;
  std::vector<double> samples;
};

// One line's JSON → (name, pending) or the problem.
std::string parse_one(std::string_view text, std::string& name, Pending& m) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "not JSON";
  if (!j.is_object()) return "not a JSON object";
  for (const auto& [k, v] : j.items())
    if (k != "name" && k != "unit" && k != "direction" && k != "value" && k != "samples")
      return fmt::format("unknown field \"{}\"", k);
  if (!j.contains("name") || !j["name"].is_string()) return "\"name\" (a string) is required";
  name = j["name"].get<std::string>();
  if (!valid_name(name))
    return fmt::format("name \"{}\" is not [a-z0-9_.] (at most 64 characters)", excerpt(name));
  if (kReserved.count(name)) return fmt::format("name \"{}\" is reserved for the probe's own metric", name);
  if (!j.contains("unit") || !j["unit"].is_string()) return "\"unit\" (a string) is required";
  m.unit = j["unit"].get<std::string>();
  if (!is_known_unit(m.unit))
    return fmt::format("unknown unit \"{}\" (see docs/container-probes.md)", excerpt(m.unit));
  if (!j.contains("direction") || !j["direction"].is_string())
    return "\"direction\" (higher or lower) is required";
  const auto dir = parse_direction(j["direction"].get<std::string>());
  if (!dir) return "\"direction\" must be higher or lower";
  m.direction = *dir;
  const bool has_value = j.contains("value"), has_samples = j.contains("samples");
  if (has_value == has_samples) return "exactly one of \"value\" and \"samples\" is required";
  auto number = [](const nlohmann::json& v, double& out) {
    if (!v.is_number()) return false;
    out = v.get<double>();
    return std::isfinite(out);
  };
  if (has_value) {
    double v = 0;
    if (!number(j["value"], v)) return "\"value\" is not a finite number";
    m.samples.push_back(v);
  } else {
    const auto& s = j["samples"];
    if (!s.is_array() || s.empty()) return "\"samples\" must be a non-empty array of numbers";
    if (s.size() > kMaxMetricSamples) return fmt::format("more than {} samples", kMaxMetricSamples);
    for (const auto& e : s) {
      double v = 0;
      if (!number(e, v)) return "\"samples\" holds something that is not a finite number";
      m.samples.push_back(v);
    }
  }
  return "";
}

Finding finding(std::string code, std::string detail) {
  return Finding{
      .code = std::move(code),
      .severity = Severity::warn,
      .detail = std::move(detail),
      .action = "fix the image's gpuqual-metric output (docs/container-probes.md)",
  };
}

}  // namespace

MetricLines parse_metric_lines(std::string_view output, bool truncated, const std::string& probe_key,
                               std::size_t max_lines) {
  MetricLines out;
  std::vector<std::string> order;
  std::map<std::string, Pending> metrics;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < output.size();) {
    const std::size_t nl = output.find('\n', pos);
    if (nl == std::string_view::npos && truncated) break;  // cut by the capture limit: incomplete
    std::string_view line =
        output.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? output.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.starts_with(kMetricLineMarker)) continue;
    if (out.lines == max_lines) {
      out.findings.push_back(
          finding("container.metric_limit",
                  fmt::format("{}: more than {} gpuqual-metric lines; line {} and later ignored", probe_key,
                              max_lines, line_no)));
      break;
    }
    ++out.lines;
    if (line.size() > kMaxMetricLineBytes) {
      out.findings.push_back(
          finding("container.metric_limit",
                  fmt::format("{}: line {} is longer than {} bytes; it and later lines ignored", probe_key,
                              line_no, kMaxMetricLineBytes)));
      break;
    }
    std::string name;
    Pending m;
    std::string problem = parse_one(line.substr(kMetricLineMarker.size()), name, m);
    if (problem.empty()) {
      auto [it, fresh] = metrics.try_emplace(name, m);
      if (fresh) {
        order.push_back(name);
      } else if (it->second.unit != m.unit || it->second.direction != m.direction) {
        problem = fmt::format("\"{}\" was reported before with unit {} and direction {}", name,
                              it->second.unit, to_string(it->second.direction));
      } else if (it->second.samples.size() + m.samples.size() > kMaxMetricSamples) {
        problem = fmt::format("\"{}\" has more than {} samples", name, kMaxMetricSamples);
      } else {
        it->second.samples.insert(it->second.samples.end(), m.samples.begin(), m.samples.end());
      }
    }
    if (!problem.empty()) {
      Finding f = finding("container.metric_malformed",
                          fmt::format("{}: line {}: {}: {}", probe_key, line_no, problem, excerpt(line)));
      out.findings.push_back(std::move(f));
    }
  }
  for (const auto& name : order) {
    Pending& m = metrics.at(name);
    out.metrics.push_back(summarize_metric(fmt::format("container.{}.{}", probe_key, name), m.unit,
                                           m.direction, std::nullopt, std::move(m.samples)));
  }
  return out;
}

}  // namespace gpuqual::probes
