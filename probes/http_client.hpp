#pragma once
// One HTTP request with libcurl: over TCP (the telemetry scrape) or over a unix socket (the
// Docker Engine API and Podman's Docker-compatible service). Bounded body, deadline, stop flag.
// A transport failure (nothing listening, refused, timed out) throws HttpError; any HTTP status,
// 4xx and 5xx included, is a response the caller judges.
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuqual::probes {

struct HttpRequest {
  std::string method = "GET";
  std::string url;                   // http://docker/containers/json when over a socket
  std::string unix_socket;           // empty: plain TCP
  std::string body;                  // sent when non-empty (or method is POST/PUT)
  std::vector<std::string> headers;  // "Content-Type: application/json"
  double timeout_s = 30;             // whole transfer
  double connect_timeout_s = 5;
  std::size_t max_body = 16u << 20;  // longer bodies are cut; `truncated` says so
  const std::atomic<bool>* stop = nullptr;
};

struct HttpResponse {
  long status = 0;
  std::string body;
  bool truncated = false;
};

class HttpError : public std::runtime_error {
 public:
  enum class Kind { connect, timeout, stopped, other };
  HttpError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

HttpResponse http_request(const HttpRequest& request);

// Percent-encodes a query value (filters={"label":[...]}).
std::string url_escape(const std::string& value);

}  // namespace gpuqual::probes
