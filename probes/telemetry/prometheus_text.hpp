#pragma once
// A parser of the Prometheus text exposition format (version 0.0.4), what dcgm-exporter and
// node exporters serve on /metrics:
//
//   # HELP name text with \\ and \n escapes
//   # TYPE name counter|gauge|histogram|summary|untyped
//   name{label="value with \" \\ \n escapes",other="x"} 1.5e3 1700000000000
//
// Strict where the format is strict (names, quoting, escapes, duplicate labels, numbers incl.
// NaN/+Inf/-Inf, optional integer timestamp); lenient where Prometheus is (blank lines, other
// comments, a trailing comma in the label set, CRLF). Errors name the line. Debian ships no
// C++ parser of this format, hence this focused one (tests: tests/unit/test_telemetry_*.cpp,
// on the recorded dcgm-exporter sample).
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuqual::probes {

class PromParseError : public std::runtime_error {
 public:
  PromParseError(int line, const std::string& problem);
  int line() const { return line_; }

 private:
  int line_;
};

struct PromSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // in the order written, unescaped
  double value = 0;
  std::optional<std::int64_t> timestamp_ms;
  int line = 0;
  // The label's value, or nullptr when the sample has no such label.
  const std::string* label(std::string_view key) const;
};

struct PromDocument {
  std::vector<PromSample> samples;
  std::map<std::string, std::string> types;  // from # TYPE
  std::map<std::string, std::string> help;   // from # HELP, unescaped
};

// Throws PromParseError.
PromDocument parse_prometheus_text(std::string_view text);

}  // namespace gpuqual::probes
