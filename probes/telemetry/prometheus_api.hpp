#pragma once
// A bounded client of the Prometheus HTTP API's range queries (POST /api/v1/query_range,
// prometheus.io/docs/prometheus/latest/querying/api/), the API Thanos Query, Grafana Mimir and
// VictoriaMetrics serve too; tested against Prometheus itself (tests/integration/
// test_observe_prometheus.py). Bounded: a step, the server-side `timeout`, a whole-transfer
// deadline, a body cap, a series limit (`limit`, which servers from Prometheus 3 honour, and a
// count here for those that ignore it). libcurl does the I/O (probes/http_client.hpp), simdjson
// reads the answer. Never throws for a failed query: the answer's `error` says what failed.
#include <cstddef>
#include <string>

#include "core/judge/observe_series.hpp"

namespace gpuqual::probes {

struct PrometheusClient {
  std::string base_url;   // http://prometheus:9090 (a path prefix is kept: .../prometheus)
  double timeout_s = 30;  // per query, both the server's evaluation and the transfer
  std::size_t max_series = 20000;
  std::size_t max_body = 512u << 20;
};

observe::QueryResult query_range(const PrometheusClient& client, const std::string& query,
                                 const observe::Window& window);

// The answer body of a range query → series, or the error it carries (exposed for tests).
observe::QueryResult parse_query_range(const std::string& query, const std::string& body, long http_status,
                                       std::size_t max_series);

// A value for a PromQL regex matcher (=~) that matches exactly `text` (RE2 metacharacters
// escaped), inside a double-quoted PromQL string (backslashes doubled).
std::string promql_regex_literal(const std::string& text);

}  // namespace gpuqual::probes
