#pragma once
// A DNS lookup through the system resolver (getaddrinfo: /etc/hosts, nsswitch, the cluster's
// resolver), bounded in time: getaddrinfo itself has no deadline, so it runs in a helper
// thread that is abandoned (detached) when the deadline passes.
#include <string>
#include <vector>

namespace gpuqual::probes {

struct ResolveResult {
  bool timed_out = false;
  int gai_error = 0;                   // 0: resolved; else getaddrinfo's code (EAI_NONAME, ...)
  std::string error;                   // gai_strerror, when it failed
  std::vector<std::string> addresses;  // numeric, in resolver order
  double seconds = 0;
};

ResolveResult resolve_name(const std::string& name, double timeout_s);

}  // namespace gpuqual::probes
