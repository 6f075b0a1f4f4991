#include "probes/network/network_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "core/base/json_fields.hpp"
#include "core/record/metric_summary.hpp"
#include "probes/network/net_resolve.hpp"
#include "probes/site_config.hpp"
#include "probes/slug.hpp"

namespace gpuqual::probes {

namespace {

using Clock = std::chrono::steady_clock;

// The shortest attempt worth starting (also the smallest timeout_s accepted): with less time left
// than this, an endpoint is "not measured" rather than a timeout it was never given a chance at.
constexpr double kMinAttemptS = 0.05;

struct Defaults {
  double timeout_s = 5;
  int samples = 3;
};

// "host:port", "[v6]:port"; port 1..65535.
bool split_host_port(const std::string& s, std::string& host, int& port) {
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
  host = s.substr(0, colon);
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) return false;
  try {
    std::size_t used = 0;
    port = std::stoi(s.substr(colon + 1), &used);
    return used == s.size() - colon - 1 && port >= 1 && port <= 65535;
  } catch (const std::exception&) {
    return false;
  }
}

NetEndpoint read_endpoint(JsonObject& o, const Defaults& d) {
  NetEndpoint e;
  const int kinds = o.has("resolve") + o.has("connect") + o.has("url");
  if (kinds != 1) o.fail("connect", "give exactly one of resolve: NAME, connect: HOST:PORT, url: URL");
  if (o.has("resolve")) {
    e.kind = NetEndpoint::Kind::resolve;
    e.target = o.nonempty_str("resolve");
  } else if (o.has("connect")) {
    e.kind = NetEndpoint::Kind::connect;
    e.target = o.nonempty_str("connect");
    if (!split_host_port(e.target, e.net.host, e.net.port))
      o.fail("connect", fmt::format("'{}' is not HOST:PORT", e.target));
    e.net.tls = o.opt_boolean("tls").value_or(false);
    e.net.tls_name = o.str_or("tls_name", "");
    if (!e.net.tls && !e.net.tls_name.empty()) o.fail("tls_name", "only with tls: true");
  } else {
    e.kind = NetEndpoint::Kind::url;
    e.target = o.nonempty_str("url");
    if (e.target.rfind("http://", 0) != 0 && e.target.rfind("https://", 0) != 0)
      o.fail("url", fmt::format("'{}' is not an http:// or https:// URL", e.target));
    e.net.url = e.target;
    if (o.has("expect_status")) {
      for (double s : o.number_array("expect_status", 100)) e.expect_status.push_back(static_cast<long>(s));
      if (e.expect_status.empty()) o.fail("expect_status", "at least one status");
    }
  }
  e.net.ca_file = o.str_or("ca_file", "");
  e.name = o.str_or("name", slug(e.target));
  if (e.name.empty() ||
      e.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
    o.fail("name",
           fmt::format("'{}' is not a metric name part (lower-case letters, digits, '_', '-')", e.name));
  e.timeout_s = o.opt_number("timeout_s", kMinAttemptS, 600).value_or(d.timeout_s);
  e.samples = static_cast<int>(o.opt_integer("samples", 1, 100).value_or(d.samples));
  o.finish();
  return e;
}

bool status_ok(const NetEndpoint& e, long status) {
  if (e.expect_status.empty()) return status >= 200 && status < 400;
  for (long s : e.expect_status)
    if (s == status) return true;
  return false;
}

std::string expected_text(const NetEndpoint& e) {
  return e.expect_status.empty() ? "200-399" : fmt::format("{}", fmt::join(e.expect_status, " or "));
}

std::string action_for(NetProblem p) {
  switch (p) {
    case NetProblem::dns_failed:
      return "check the node's resolver (/etc/resolv.conf, CoreDNS, the upstream DNS) and the name";
    case NetProblem::refused:
      return "nothing listens there, or a firewall rejects: check the service and the node's network policy";
    case NetProblem::timeout:
      return "packets are dropped or the server hangs: check routes, firewalls, MTU and the server";
    case NetProblem::tls_invalid:
      return "the certificate is expired, untrusted or for another name: renew it or fix the CA bundle";
    case NetProblem::protocol_error:
      return "the server answered something unexpected: check that the endpoint is the service meant";
    default:
      return "";
  }
}

struct Samples {
  std::vector<double> resolve, connect, tls, request;
};

// Runs the endpoint's attempts; returns the problem of the first failed one (none if all worked).
NetAttempt run_endpoint(const NetEndpoint& e, double left_s, const std::atomic<bool>* stop, Samples& s,
                        std::string& addresses) {
  NetAttempt last;
  const auto t0 = Clock::now();
  for (int i = 0; i < e.samples; ++i) {
    const double left = left_s - std::chrono::duration<double>(Clock::now() - t0).count();
    if (left < kMinAttemptS || (stop && stop->load())) {
      last.problem = NetProblem::stopped;
      last.detail = stop && stop->load() ? "the run is being stopped" : "total_timeout_s reached";
      return last;
    }
    const double timeout = std::min(e.timeout_s, left);
    if (e.kind == NetEndpoint::Kind::resolve) {
      const ResolveResult r = resolve_name(e.target, timeout);
      NetAttempt a;
      if (r.timed_out) {
        a.problem = NetProblem::timeout;
        a.detail = fmt::format("no answer within {} s while resolving the name", timeout);
      } else if (r.gai_error != 0) {
        a.problem = NetProblem::dns_failed;
        a.detail = fmt::format("getaddrinfo: {}", r.error);
      } else {
        s.resolve.push_back(r.seconds * 1000);
        addresses = fmt::format("{}", fmt::join(r.addresses, ","));
      }
      if (a.problem != NetProblem::none) return a;
      continue;
    }
    NetTarget t = e.net;
    t.timeout_s = timeout;
    t.stop = stop;
    NetAttempt a = net_attempt(t);
    if (a.problem != NetProblem::none) return a;
    s.resolve.push_back(a.resolve_ms);
    s.connect.push_back(a.connect_ms);
    if (a.handshaken) s.tls.push_back(a.tls_ms);
    if (e.kind == NetEndpoint::Kind::url) {
      s.request.push_back(a.total_ms);
      if (!status_ok(e, a.http_status)) return a;  // the caller turns a wrong status into a finding
    }
    last = a;
  }
  return last;
}

}  // namespace

NetworkConfig parse_network_params(const nlohmann::json& params, const std::string& origin) {
  const SiteParams site = resolve_site_params(params, "network", origin);
  const std::string where =
      site.site_file_present ? fmt::format("{} (with {})", origin, site.site_file) : origin;
  JsonObject o(site.params, where, "$");
  Defaults d;
  d.timeout_s = o.opt_number("timeout_s", kMinAttemptS, 600).value_or(d.timeout_s);
  d.samples = static_cast<int>(o.opt_integer("samples", 1, 100).value_or(d.samples));
  NetworkConfig c;
  c.total_timeout_s = o.opt_number("total_timeout_s", 0.1, 86400).value_or(c.total_timeout_s);
  c.site_file = site.site_file;
  c.site_file_present = site.site_file_present;
  c.endpoints = read_named_entries(o, "endpoints", where, [&](JsonObject& p) { return read_endpoint(p, d); });
  o.finish();
  return c;
}

CheckResult run_network(const NetworkConfig& config, const std::atomic<bool>* stop) {
  CheckResult r;
  r.name = "network";
  const auto t0 = Clock::now();
  record_site_file(r, config.site_file, config.site_file_present);
  if (config.endpoints.empty()) {
    r.status = Status::skip;
    r.reason_code = "not_configured";
    r.reason = config.site_file.empty() || config.site_file_present
                   ? "no network endpoint configured: the site names none"
                   : fmt::format("no network endpoint configured: no site file at {}", config.site_file);
    return r;
  }
  std::vector<std::string> failures, errors;
  for (const auto& e : config.endpoints) {
    const std::string k = "network." + e.name + ".";
    r.attributes[k + "target"] = e.target + (e.net.tls ? " (tls)" : "");
    const double left = config.total_timeout_s - std::chrono::duration<double>(Clock::now() - t0).count();
    Samples s;
    std::string addresses;
    const NetAttempt a = run_endpoint(e, left, stop, s, addresses);
    if (!addresses.empty()) r.attributes[k + "addresses"] = addresses;
    if (!s.resolve.empty())
      r.metrics.push_back(
          summarize_metric(k + "resolve_ms", "ms", Direction::lower, std::nullopt, s.resolve));
    if (!s.connect.empty())
      r.metrics.push_back(
          summarize_metric(k + "connect_ms", "ms", Direction::lower, std::nullopt, s.connect));
    if (!s.tls.empty())
      r.metrics.push_back(summarize_metric(k + "tls_ms", "ms", Direction::lower, std::nullopt, s.tls));
    if (!s.request.empty())
      r.metrics.push_back(
          summarize_metric(k + "request_ms", "ms", Direction::lower, std::nullopt, s.request));
    if (e.kind == NetEndpoint::Kind::url && a.http_status != 0)
      r.attributes[k + "http_status"] = std::to_string(a.http_status);

    if (a.problem == NetProblem::stopped) {
      errors.push_back(fmt::format("network {} ({}): not measured: {}", e.name, e.target, a.detail));
      continue;
    }
    Finding f;
    if (a.problem != NetProblem::none) {
      f = Finding{
          .code = fmt::format("network.{}", to_string(a.problem)),
          .severity = Severity::fail,
          .detail = fmt::format("{} ({}): {}", e.name, e.target, a.detail),
          .action = action_for(a.problem),
      };
    } else if (e.kind == NetEndpoint::Kind::url && !status_ok(e, a.http_status)) {
      f = Finding{
          .code = "network.http_status",
          .severity = Severity::fail,
          .detail =
              fmt::format("{} ({}): HTTP {}, expected {}", e.name, e.target, a.http_status, expected_text(e)),
          .action = "the service answers, but not as it should: check it and what is behind it",
          .value = static_cast<double>(a.http_status),
      };
    } else {
      continue;
    }
    failures.push_back(fmt::format("{}: {}", f.code, f.detail));
    r.findings.push_back(std::move(f));
  }
  r.duration_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!failures.empty()) {
    r.status = Status::fail;
    r.reason = fmt::format("{}", fmt::join(failures, "; "));
    if (!errors.empty()) r.reason += fmt::format("; {}", fmt::join(errors, "; "));
  } else if (!errors.empty()) {
    r.status = Status::error;
    r.reason = fmt::format("{}", fmt::join(errors, "; "));
  } else {
    r.status = Status::pass;
  }
  return r;
}

}  // namespace gpuqual::probes
