#include "probes/telemetry/prometheus_api.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>
#include <cmath>

#include "probes/http_client.hpp"

namespace gpuqual::probes {

namespace {

using simdjson::dom::element;

// Prometheus writes sample values as strings: "1", "0.25", "NaN", "+Inf".
bool read_value(std::string_view s, double& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v);
}

bool read_series(element item, observe::Series& s) {
  simdjson::dom::object metric;
  simdjson::dom::array values;
  if (item["metric"].get(metric) || item["values"].get(values)) return false;
  for (auto [key, value] : metric) {
    std::string_view text;
    if (value.get(text)) return false;
    s.labels.emplace(std::string(key), std::string(text));
  }
  s.points.reserve(values.size());
  for (element pair : values) {
    simdjson::dom::array a;
    double t = 0, v = 0;
    std::string_view text;
    if (pair.get(a) || a.size() != 2 || a.at(0).get(t) || a.at(1).get(text)) return false;
    if (read_value(text, v)) s.points.push_back({t, v});
  }
  return true;
}

std::string error_of(element doc, long http_status) {
  std::string_view type, error;
  if (doc["errorType"].get(type)) type = "error";
  if (doc["error"].get(error)) error = "no error text";
  return fmt::format("HTTP {}: {}: {}", http_status, type, error);
}

}  // namespace

observe::QueryResult parse_query_range(const std::string& query, const std::string& body, long http_status,
                                       std::size_t max_series) {
  observe::QueryResult r;
  r.query = query;
  simdjson::dom::parser parser;
  element doc;
  if (parser.parse(body).get(doc)) {
    r.error = fmt::format("HTTP {}: the answer is not JSON ({} bytes)", http_status, body.size());
    return r;
  }
  std::string_view status;
  if (doc["status"].get(status) || status != "success") {
    r.error = error_of(doc, http_status);
    return r;
  }
  simdjson::dom::array result;
  std::string_view type;
  if (doc["data"]["resultType"].get(type) || type != "matrix" || doc["data"]["result"].get(result)) {
    r.error = fmt::format("the answer is not a range query's matrix (resultType \"{}\")", type);
    return r;
  }
  if (result.size() > max_series) {
    r.error = fmt::format("more than {} series (the series limit): narrow the query", max_series);
    return r;
  }
  for (element item : result) {
    observe::Series s;
    if (!read_series(item, s)) {
      r.error = "a series of the answer is malformed";
      r.series.clear();
      return r;
    }
    r.series.push_back(std::move(s));
  }
  return r;
}

observe::QueryResult query_range(const PrometheusClient& client, const std::string& query,
                                 const observe::Window& window) {
  HttpRequest req;
  req.method = "POST";
  std::string base = client.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  req.url = base + "/api/v1/query_range";
  req.headers = {"Content-Type: application/x-www-form-urlencoded"};
  req.body =
      fmt::format("query={}&start={:.3f}&end={:.3f}&step={:g}&timeout={:g}s&limit={}", url_escape(query),
                  window.start, window.end, window.step, client.timeout_s, client.max_series + 1);
  req.timeout_s = client.timeout_s + 5;  // the server answers its own timeout first
  req.max_body = client.max_body;
  observe::QueryResult r;
  r.query = query;
  try {
    const HttpResponse resp = http_request(req);
    if (resp.truncated) {
      r.error = fmt::format("the answer is larger than {} MiB: narrow the query", client.max_body >> 20);
      return r;
    }
    return parse_query_range(query, resp.body, resp.status, client.max_series);
  } catch (const HttpError& e) {
    r.error = fmt::format("{} unreachable: {}", client.base_url, e.what());
  }
  return r;
}

std::string promql_regex_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view(R"(\.+*?()|[]{}^$)").find(c) != std::string_view::npos) out += "\\\\";
    if (c == '"') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace gpuqual::probes
