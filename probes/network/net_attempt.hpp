#pragma once
// One connection attempt to an endpoint with libcurl, with its phase timings: TCP connect only,
// a TLS handshake (certificate chain and expected name verified), or a whole HTTP(S) request.
// The failure is classified into the network check's finding kinds.
#include <atomic>
#include <string>

namespace gpuqual::probes {

struct NetTarget {
  std::string host;  // name or address to connect to
  int port = 0;
  bool tls = false;      // handshake and verify
  std::string tls_name;  // the name the certificate must carry (default: host)
  std::string ca_file;   // trust anchors; "" = the system store
  std::string url;       // non-empty: an HTTP(S) request to this URL (host/port unused)
  double timeout_s = 5;
  const std::atomic<bool>* stop = nullptr;
};

// none: it worked (for a URL: an answer came; the status is the caller's to judge).
enum class NetProblem { none, dns_failed, refused, timeout, tls_invalid, protocol_error, stopped };
std::string_view to_string(NetProblem p);

struct NetAttempt {
  NetProblem problem = NetProblem::none;
  std::string detail;     // curl's message
  double resolve_ms = 0;  // name lookup
  double connect_ms = 0;  // TCP connect, after the lookup
  double tls_ms = 0;      // TLS handshake, after the connect (0 without TLS)
  double total_ms = 0;
  long http_status = 0;  // for a URL
  bool resolved = false, connected = false, handshaken = false;
};

NetAttempt net_attempt(const NetTarget& target);

}  // namespace gpuqual::probes
