// network: can this node still reach what its jobs need (registry, object store, API server,
// NFS server, rendezvous)? DNS lookups, TCP connects, TLS handshakes and HTTP(S) requests to the
// site's endpoints, bounded in time. The work is in probes/network/network_check.cpp.
#include "probes/network/network_check.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

namespace {

class NetworkCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    return probes::run_network(probes::parse_network_params(ctx.params, "network params"),
                               ctx.stop_requested);
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(
    NetworkCheck, "network",
    "Resolve, connect, TLS-handshake and HTTP(S)-request the site's endpoints (registry, storage, API)");

}  // namespace gpuqual
