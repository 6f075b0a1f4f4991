#pragma once
// The `network` check: can this node still reach what its jobs need (the image registry, the
// object store, the API server, the NFS server, a training job's rendezvous)? Per endpoint, a
// few attempts of one of: a DNS lookup, a TCP connect, a TLS handshake (chain and expected name
// verified), an HTTP(S) request with an expected status. Bounded per attempt and overall.
//
//   site_file: /etc/gpuqual/site/site.yaml   # its `network:` section is laid over these
//   timeout_s: 5            # per attempt
//   samples: 3              # attempts per endpoint (latency samples)
//   total_timeout_s: 60     # all endpoints; keep it under the suite entry's timeout_s
//   endpoints:
//     - {name: cluster-dns, resolve: kubernetes.default.svc.cluster.local}
//     - {name: nfs, connect: "10.0.0.5:2049"}
//     - {name: registry, connect: "registry.corp:443", tls: true, ca_file: /etc/ssl/corp.pem}
//     - {name: s3, url: "https://s3.corp/minio/health/live", expect_status: [200]}
//
// Findings (fail), each naming the endpoint: network.dns_failed, .refused, .timeout,
// .tls_invalid, .http_status, .protocol_error. No endpoint configured → skip, not_configured.
#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/record/record.hpp"
#include "probes/network/net_attempt.hpp"

namespace gpuqual::probes {

struct NetEndpoint {
  std::string name;
  enum class Kind { resolve, connect, url } kind = Kind::connect;
  std::string target;               // what the config said: the name, host:port or URL
  NetTarget net;                    // host/port/tls/url for connect and url
  std::vector<long> expect_status;  // url: accepted statuses; empty = 200..399
  double timeout_s = 5;
  int samples = 3;
};

struct NetworkConfig {
  std::vector<NetEndpoint> endpoints;
  double total_timeout_s = 60;
  std::string site_file;
  bool site_file_present = false;
};

// Throws InputError naming the file and the field.
NetworkConfig parse_network_params(const nlohmann::json& params, const std::string& origin);

CheckResult run_network(const NetworkConfig& config, const std::atomic<bool>* stop);

}  // namespace gpuqual::probes
