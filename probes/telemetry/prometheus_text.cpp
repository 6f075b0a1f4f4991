#include "probes/telemetry/prometheus_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <limits>

namespace gpuqual::probes {

PromParseError::PromParseError(int line, const std::string& problem)
    : std::runtime_error(fmt::format("line {}: {}", line, problem)), line_(line) {}

const std::string* PromSample::label(std::string_view key) const {
  for (const auto& [k, v] : labels)
    if (k == key) return &v;
  return nullptr;
}

namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }
bool label_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool label_char(char c) { return label_start(c) || (c >= '0' && c <= '9'); }
bool blank(char c) { return c == ' ' || c == '\t'; }

// A cursor over one line.
class Line {
 public:
  Line(std::string_view text, int number) : s_(text), n_(number) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  void skip_blanks() {
    while (!done() && blank(s_[i_])) ++i_;
  }
  [[noreturn]] void fail(const std::string& problem) const { throw PromParseError(n_, problem); }
  std::string metric_name() {
    const std::size_t start = i_;
    if (done() || !name_start(s_[i_])) fail(fmt::format("expected a metric name at column {}", i_ + 1));
    while (!done() && name_char(s_[i_])) ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  std::string label_name() {
    const std::size_t start = i_;
    if (done() || !label_start(s_[i_])) fail(fmt::format("expected a label name at column {}", i_ + 1));
    while (!done() && label_char(s_[i_])) ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  void expect(char c) {
    if (peek() != c) fail(fmt::format("expected '{}' at column {}", c, i_ + 1));
    ++i_;
  }
  // A quoted label value with \\, \" and \n escapes.
  std::string quoted() {
    expect('"');
    std::string out;
    while (true) {
      if (done()) fail("unterminated label value");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (done()) fail("unterminated escape in label value");
      const char e = s_[i_++];
      if (e == '\\')
        out += '\\';
      else if (e == '"')
        out += '"';
      else if (e == 'n')
        out += '\n';
      else
        fail(fmt::format("invalid escape '\\{}' in label value", e));
    }
  }
  std::string_view token() {
    const std::size_t start = i_;
    while (!done() && !blank(s_[i_])) ++i_;
    return s_.substr(start, i_ - start);
  }
  std::string_view rest() const { return s_.substr(std::min(i_, s_.size())); }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  int n_;
};

double parse_value(std::string_view t, const Line& line) {
  // Go's strconv.ParseFloat (what Prometheus uses) takes NaN and Inf in any letter case.
  std::string low;
  for (char c : t) low += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (low == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (low == "+inf" || low == "inf" || low == "+infinity" || low == "infinity")
    return std::numeric_limits<double>::infinity();
  if (low == "-inf" || low == "-infinity") return -std::numeric_limits<double>::infinity();
  if (t.empty()) line.fail("missing sample value");
  // Go's ParseFloat accepts what strtod does for decimal forms; reject hex and words.
  for (char c : t)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      line.fail(fmt::format("invalid sample value '{}'", t));
  const std::string copy(t);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) line.fail(fmt::format("invalid sample value '{}'", t));
  return v;
}

std::string unescape_help(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\\' || s[i + 1] == 'n')) {
      out += s[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

void parse_comment(Line& line, PromDocument& doc) {
  line.expect('#');
  line.skip_blanks();
  const std::string_view keyword = line.token();
  if (keyword != "HELP" && keyword != "TYPE") return;  // any other comment is ignored
  line.skip_blanks();
  const std::string name = line.metric_name();
  if (!line.done() && !blank(line.peek())) line.fail("invalid metric name in # " + std::string(keyword));
  line.skip_blanks();
  if (keyword == "HELP") {
    doc.help[name] = unescape_help(line.rest());
    return;
  }
  const std::string type(line.token());
  if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" && type != "untyped")
    line.fail(fmt::format("unknown metric type '{}'", type));
  if (doc.types.count(name)) line.fail(fmt::format("second # TYPE line for {}", name));
  doc.types[name] = type;
}

PromSample parse_sample(Line& line, int number) {
  PromSample s;
  s.line = number;
  s.name = line.metric_name();
  const bool blank_after_name = blank(line.peek());
  line.skip_blanks();  // expfmt allows blanks between the name and its label set
  if (line.peek() == '{') {
    line.expect('{');
    while (true) {
      line.skip_blanks();
      if (line.peek() == '}') break;
      std::string key = line.label_name();
      line.skip_blanks();
      line.expect('=');
      line.skip_blanks();
      std::string value = line.quoted();
      if (s.label(key)) line.fail(fmt::format("label '{}' given twice", key));
      s.labels.emplace_back(std::move(key), std::move(value));
      line.skip_blanks();
      if (line.peek() == ',') {
        line.expect(',');
        continue;
      }
      if (line.peek() != '}') line.fail("expected ',' or '}' in the label set");
    }
    line.expect('}');
    if (!blank(line.peek())) line.fail("expected a blank between the metric and its value");
  } else if (!blank_after_name) {
    line.fail(line.done() ? "missing sample value" : "expected a blank between the metric and its value");
  }
  line.skip_blanks();
  s.value = parse_value(line.token(), line);
  line.skip_blanks();
  if (!line.done()) {
    const std::string_view ts = line.token();
    std::int64_t t = 0;
    const auto [end, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
    if (ec != std::errc() || end != ts.data() + ts.size())
      line.fail(fmt::format("invalid timestamp '{}'", ts));
    s.timestamp_ms = t;
    line.skip_blanks();
    if (!line.done()) line.fail("unexpected text after the timestamp");
  }
  return s;
}

}  // namespace

PromDocument parse_prometheus_text(std::string_view text) {
  PromDocument doc;
  int number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (raw.find('\0') != std::string_view::npos) throw PromParseError(number, "NUL byte in the text");
    Line line(raw, number);
    line.skip_blanks();
    if (line.done()) continue;
    if (line.peek() == '#') {
      parse_comment(line, doc);
      continue;
    }
    doc.samples.push_back(parse_sample(line, number));
  }
  return doc;
}

}  // namespace gpuqual::probes
