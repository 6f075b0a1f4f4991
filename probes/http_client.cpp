#include "probes/http_client.hpp"

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

struct Sink {
  std::string* body;
  std::size_t cap;
  bool truncated = false;
};

std::size_t on_write(char* data, std::size_t size, std::size_t nmemb, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t n = size * nmemb;
  const std::size_t room = sink->body->size() < sink->cap ? sink->cap - sink->body->size() : 0;
  if (n > room) {
    sink->body->append(data, room);
    sink->truncated = true;
    return 0;  // aborts the transfer: we have all we keep (CURLE_WRITE_ERROR, handled below)
  }
  sink->body->append(data, n);
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* stop = static_cast<const std::atomic<bool>*>(user);
  return stop && stop->load() ? 1 : 0;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

std::string url_escape(const std::string& value) {
  global_init();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  char* out = curl_easy_escape(curl.get(), value.data(), static_cast<int>(value.size()));
  std::string s = out ? out : "";
  curl_free(out);
  return s;
}

HttpResponse http_request(const HttpRequest& request) {
  global_init();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) throw HttpError(HttpError::Kind::other, "curl_easy_init failed");
  CURL* c = curl.get();
  HttpResponse response;
  Sink sink{&response.body, request.max_body};
  char errbuf[CURL_ERROR_SIZE] = {0};

  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  if (!request.unix_socket.empty())
    curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, request.unix_socket.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const auto& h : request.headers) headers.reset(curl_slist_append(headers.release(), h.c_str()));
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  // Never pick up a proxy from the environment: the endpoints are local.
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  if (request.stop) {
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(request.stop));
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }

  const CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  response.truncated = sink.truncated;
  if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && sink.truncated)) return response;

  const std::string where =
      request.unix_socket.empty() ? request.url : fmt::format("unix://{}", request.unix_socket);
  const std::string detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
      throw HttpError(HttpError::Kind::connect, fmt::format("cannot connect to {}: {}", where, detail));
    case CURLE_OPERATION_TIMEDOUT:
      throw HttpError(HttpError::Kind::timeout,
                      fmt::format("{} {} timed out after {:.1f} s: {}", request.method, where,
                                  request.timeout_s, detail));
    case CURLE_ABORTED_BY_CALLBACK:
      throw HttpError(HttpError::Kind::stopped,
                      fmt::format("{} {} stopped (run interrupted)", request.method, where));
    default:
      throw HttpError(HttpError::Kind::other, fmt::format("{} {}: {}", request.method, where, detail));
  }
}

}  // namespace gpuqual::probes
