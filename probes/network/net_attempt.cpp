#include "probes/network/net_attempt.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <memory>
#include <mutex>

namespace gpuqual::probes {

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

// The body of an HTTP answer is not wanted: only its status. Dropped as it arrives.
size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

int on_progress(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* s = static_cast<const std::atomic<bool>*>(stop);
  return s && s->load() ? 1 : 0;
}

std::string host_in_url(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

double ms(CURL* c, CURLINFO what) {
  curl_off_t us = 0;
  curl_easy_getinfo(c, what, &us);
  return static_cast<double>(us) / 1000.0;
}

NetProblem classify(CURLcode rc) {
  switch (rc) {
    case CURLE_OK:
      return NetProblem::none;
    case CURLE_COULDNT_RESOLVE_HOST:
      return NetProblem::dns_failed;
    case CURLE_COULDNT_CONNECT:
      return NetProblem::refused;
    case CURLE_OPERATION_TIMEDOUT:
      return NetProblem::timeout;
    case CURLE_ABORTED_BY_CALLBACK:
      return NetProblem::stopped;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      return NetProblem::tls_invalid;
    default:
      return NetProblem::protocol_error;
  }
}

}  // namespace

std::string_view to_string(NetProblem p) {
  switch (p) {
    case NetProblem::none:
      return "none";
    case NetProblem::dns_failed:
      return "dns_failed";
    case NetProblem::refused:
      return "refused";
    case NetProblem::timeout:
      return "timeout";
    case NetProblem::tls_invalid:
      return "tls_invalid";
    case NetProblem::protocol_error:
      return "protocol_error";
    case NetProblem::stopped:
      return "stopped";
  }
  return "protocol_error";
}

NetAttempt net_attempt(const NetTarget& t) {
  global_init();
  std::unique_ptr<CURL, EasyDeleter> c(curl_easy_init());
  NetAttempt a;
  if (!c) {
    a.problem = NetProblem::protocol_error;
    a.detail = "curl_easy_init failed";
    return a;
  }
  CURL* h = c.get();
  char err[CURL_ERROR_SIZE] = {};
  const std::string name = t.tls_name.empty() ? t.host : t.tls_name;
  std::string url = t.url;
  std::string connect_to;
  curl_slist* connect_list = nullptr;
  if (url.empty()) {
    url = fmt::format("{}://{}:{}/", t.tls ? "https" : "http", host_in_url(t.tls ? name : t.host), t.port);
    // Verify the certificate against the expected name while connecting to `host`
    // (CURLOPT_CONNECT_TO keeps SNI and the name check on the URL's host).
    if (t.tls && name != t.host) {
      connect_to = fmt::format("{}:{}:{}:{}", host_in_url(name), t.port, host_in_url(t.host), t.port);
      connect_list = curl_slist_append(nullptr, connect_to.c_str());
      curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_list);
    }
    curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
  }
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_NOPROXY, "*");  // the node's own path to the endpoint, not a proxy's
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(t.timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(t.timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!t.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, t.ca_file.c_str());
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(t.stop));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "gpuqual-network-check");

  const CURLcode rc = curl_easy_perform(h);
  if (connect_list) curl_slist_free_all(connect_list);
  const double lookup = ms(h, CURLINFO_NAMELOOKUP_TIME_T);
  const double connect = ms(h, CURLINFO_CONNECT_TIME_T);
  const double app = ms(h, CURLINFO_APPCONNECT_TIME_T);
  a.total_ms = ms(h, CURLINFO_TOTAL_TIME_T);
  a.resolved = lookup > 0 || connect > 0;
  // For TLS, curl may count the handshake as part of "connecting"; a local port means the TCP
  // connection itself was made.
  long local_port = 0;
  curl_easy_getinfo(h, CURLINFO_LOCAL_PORT, &local_port);
  a.connected = connect > 0 || local_port > 0;
  a.handshaken = app > 0;
  a.resolve_ms = lookup;
  if (connect > 0) a.connect_ms = connect - lookup;
  if (a.handshaken) a.tls_ms = app - connect;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a.http_status);
  a.problem = classify(rc);
  if (a.problem != NetProblem::none) {
    a.detail = err[0] ? err : curl_easy_strerror(rc);
    if (a.problem == NetProblem::timeout) {
      const char* phase = !a.resolved                                              ? "resolving the name"
                          : !a.connected                                           ? "connecting"
                          : (t.tls || url.rfind("https", 0) == 0) && !a.handshaken ? "the TLS handshake"
                                                                                   : "waiting for the answer";
      a.detail = fmt::format("no progress within {} s while {} ({})", t.timeout_s, phase, a.detail);
    }
  }
  return a;
}

}  // namespace gpuqual::probes
