#include "probes/network/net_resolve.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace gpuqual::probes {

namespace {

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  ResolveResult result;
};

void lookup(const std::string& name, ResolveResult& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  out.gai_error = ::getaddrinfo(name.c_str(), nullptr, &hints, &res);
  if (out.gai_error != 0) {
    out.error = ::gai_strerror(out.gai_error);
    return;
  }
  std::set<std::string> seen;
  for (const addrinfo* a = res; a != nullptr; a = a->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {};
    if (::getnameinfo(a->ai_addr, a->ai_addrlen, buf, sizeof buf, nullptr, 0, NI_NUMERICHOST) == 0 &&
        seen.insert(buf).second)
      out.addresses.push_back(buf);
  }
  ::freeaddrinfo(res);
}

}  // namespace

ResolveResult resolve_name(const std::string& name, double timeout_s) {
  auto shared = std::make_shared<Shared>();
  const auto t0 = std::chrono::steady_clock::now();
  std::thread([shared, name] {
    ResolveResult r;
    lookup(name, r);
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->result = std::move(r);
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->mu);
  const bool done =
      shared->cv.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return shared->done; });
  ResolveResult r = done ? shared->result : ResolveResult{};
  r.timed_out = !done;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gpuqual::probes
