// The network check against real servers on 127.0.0.1 that the test starts
// (tests/integration/loopback_servers.py: HTTP, HTTPS with a certificate made now, HTTPS with an
// expired one, a server that accepts and never answers, a closed port), and names from a test
// hosts file bind-mounted over /etc/hosts in a private mount namespace, with nsswitch reduced to
// `hosts: files`, so that no lookup leaves the machine. No traffic to any other address.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/base/input_error.hpp"
#include "probes/network/network_check.hpp"
#include "process_helpers.hpp"

namespace gpuqual::probes {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace gt = gpuqual::testing;

class LoopbackServers {
 public:
  LoopbackServers() : dir_(gt::temp_dir("net-servers")) {
    proc_ = gt::start_process(
        {"/usr/bin/env", "python3", GPUQUAL_SOURCE_DIR "/tests/integration/loopback_servers.py", dir_}, dir_);
    for (int i = 0; i < 400 && ports_.is_null(); ++i) {
      const std::string out = gt::read_all(proc_.out_path);
      if (out.find('\n') != std::string::npos)
        ports_ = json::parse(out.substr(0, out.find('\n')));
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    if (ports_.is_null()) ADD_FAILURE() << "servers did not start: " << gt::read_all(proc_.err_path);
  }
  ~LoopbackServers() {
    ::kill(proc_.pid, SIGTERM);
    ::waitpid(proc_.pid, nullptr, 0);
    std::filesystem::remove_all(dir_);
  }
  int port(const std::string& which) const { return ports_.is_null() ? 1 : ports_.at(which).get<int>(); }
  std::string at(const std::string& which) const { return "127.0.0.1:" + std::to_string(port(which)); }
  std::string ca() const { return dir_ + "/ca.pem"; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  gt::Proc proc_;
  json ports_;
};

LoopbackServers& servers() {
  static LoopbackServers s;  // one set for the whole binary: starting Python costs ~0.3 s
  return s;
}

CheckResult run(json endpoints, json extra = json::object()) {
  json params = {{"endpoints", endpoints}, {"timeout_s", 1}, {"samples", 2}};
  for (auto& [k, v] : extra.items()) params[k] = v;
  return run_network(parse_network_params(params, "test"), nullptr);
}

const Finding* finding(const CheckResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

bool has_metric(const CheckResult& r, const std::string& name, std::size_t n) {
  for (const auto& m : r.metrics)
    if (m.name == name) return m.n() == n;
  return false;
}

TEST(NetworkCheck, ConnectTlsAndHttpPassWithLatencySamples) {
  auto& s = servers();
  const CheckResult r = run(json::array({
      json{{"name", "plain"}, {"connect", s.at("http")}},
      json{{"name", "tls"},
           {"connect", s.at("https")},
           {"tls", true},
           {"tls_name", "gpuqual-test.internal"},
           {"ca_file", s.ca()}},
      json{{"name", "health"}, {"url", "http://" + s.at("http") + "/ok"}},
      json{{"name", "secure"},
           {"url", "https://localhost:" + std::to_string(s.port("https")) + "/ok"},
           {"ca_file", s.ca()},
           {"expect_status", json::array({200})}},
  }));
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_TRUE(has_metric(r, "network.plain.connect_ms", 2));
  EXPECT_TRUE(has_metric(r, "network.tls.tls_ms", 2));
  EXPECT_TRUE(has_metric(r, "network.health.request_ms", 2));
  EXPECT_TRUE(has_metric(r, "network.secure.tls_ms", 2));
  EXPECT_EQ(r.attributes.at("network.secure.http_status"), "200");
}

TEST(NetworkCheck, ClosedPortIsRefused) {
  const CheckResult r = run(json::array({json{{"name", "gone"}, {"connect", servers().at("closed")}}}));
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_TRUE(finding(r, "network.refused")) << r.reason;
  EXPECT_THAT(finding(r, "network.refused")->detail, HasSubstr("gone (" + servers().at("closed") + ")"));
}

TEST(NetworkCheck, ServerThatNeverAnswersTimesOutInBoundedTime) {
  auto& s = servers();
  const auto t0 = std::chrono::steady_clock::now();
  const CheckResult r = run(json::array({
      json{{"name", "hs"},
           {"connect", s.at("silent")},
           {"tls", true},
           {"ca_file", s.ca()},
           {"timeout_s", 0.5}},
      json{{"name", "req"}, {"url", "http://" + s.at("silent") + "/ok"}, {"timeout_s", 0.5}},
  }));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, Status::fail);
  int timeouts = 0;
  for (const auto& f : r.findings) timeouts += f.code == "network.timeout";
  EXPECT_EQ(timeouts, 2) << r.reason;
  EXPECT_THAT(r.reason,
              HasSubstr("hs (" + s.at("silent") + "): no progress within 0.5 s while the TLS handshake"));
  EXPECT_THAT(r.reason, HasSubstr("waiting for the answer"));
  EXPECT_LT(took, 3.0);
  // The overall bound: the second endpoint is not started after total_timeout_s.
  const CheckResult t = run(json::array({json{{"name", "a"}, {"url", "http://" + s.at("silent") + "/"}},
                                         json{{"name", "b"}, {"connect", s.at("http")}}}),
                            {{"total_timeout_s", 0.6}, {"samples", 1}});
  EXPECT_THAT(t.reason, HasSubstr("network b (" + s.at("http") + "): not measured: total_timeout_s reached"));
}

TEST(NetworkCheck, ExpiredUntrustedAndWrongNameCertificatesAreTlsInvalid) {
  auto& s = servers();
  const CheckResult r = run(json::array({
      json{{"name", "expired"}, {"connect", s.at("expired")}, {"tls", true}, {"ca_file", s.ca()}},
      json{{"name", "untrusted"},
           {"connect", s.at("https")},
           {"tls", true}},  // the system store lacks the test CA
      json{{"name", "wrongname"},
           {"connect", s.at("https")},
           {"tls", true},
           {"tls_name", "registry.other.test"},
           {"ca_file", s.ca()}},
  }));
  EXPECT_EQ(r.status, Status::fail);
  std::vector<std::string> tls;
  for (const auto& f : r.findings)
    if (f.code == "network.tls_invalid") tls.push_back(f.detail);
  ASSERT_EQ(tls.size(), 3u) << r.reason;
  EXPECT_THAT(tls[0], HasSubstr("certificate has expired"));
  EXPECT_THAT(tls[1], HasSubstr("untrusted ("));
  EXPECT_THAT(tls[2], HasSubstr("registry.other.test"));
}

TEST(NetworkCheck, UnexpectedHttpStatusIsAFinding) {
  const CheckResult r =
      run(json::array({json{{"name", "down"}, {"url", "http://" + servers().at("http") + "/down"}},
                       json{{"name", "auth"},
                            {"url", "http://" + servers().at("http") + "/ok"},
                            {"expect_status", json::array({401})}}}));
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].code, "network.http_status");
  EXPECT_THAT(r.findings[0].detail, HasSubstr("HTTP 503, expected 200-399"));
  EXPECT_THAT(r.findings[1].detail, HasSubstr("HTTP 200, expected 401"));
}

// In a child with a private mount namespace: /etc/hosts knows registry.gpuqual.test, and
// nsswitch asks nothing but that file.
TEST(NetworkCheck, NamesFromAHostsFileResolveAndUnknownOnesFail) {
  const std::string dir = gt::temp_dir("net-hosts");
  std::ofstream(dir + "/hosts") << "127.0.0.1 localhost\n127.0.0.1 registry.gpuqual.test\n";
  std::ofstream(dir + "/nsswitch.conf") << "hosts: files\n";
  const int http_port = servers().port("http");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount((dir + "/hosts").c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0 ||
        ::mount((dir + "/nsswitch.conf").c_str(), "/etc/nsswitch.conf", nullptr, MS_BIND, nullptr) != 0)
      _exit(2);
    const CheckResult r = run(json::array({
        json{{"name", "reg"}, {"resolve", "registry.gpuqual.test"}},
        json{{"name", "regport"}, {"connect", "registry.gpuqual.test:" + std::to_string(http_port)}},
        json{{"name", "nx"}, {"resolve", "missing.gpuqual.test"}},
        json{{"name", "nxport"}, {"url", "http://missing.gpuqual.test:" + std::to_string(http_port) + "/ok"}},
    }));
    std::string out =
        std::string(to_string(r.status)) + "|" +
        (r.attributes.count("network.reg.addresses") ? r.attributes.at("network.reg.addresses") : "") + "|";
    for (const auto& f : r.findings) out += f.code + ":" + f.detail.substr(0, f.detail.find(' ')) + ",";
    out += has_metric(r, "network.reg.resolve_ms", 2) && has_metric(r, "network.regport.connect_ms", 2)
               ? "|metrics"
               : "|nometrics";
    _exit(::write(fds[1], out.data(), out.size()) > 0 ? 0 : 1);
  }
  ::close(fds[1]);
  std::string got;
  char buf[1024];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child status " << st;
  EXPECT_EQ(got, "fail|127.0.0.1|network.dns_failed:nx,network.dns_failed:nxport,|metrics");
}

TEST(NetworkCheck, NothingConfiguredIsNotApplicableAndBadEndpointsAreInputErrors) {
  const CheckResult none =
      run_network(parse_network_params(json{{"site_file", "/nonexistent/site.yaml"}}, "t"), nullptr);
  EXPECT_EQ(none.status, Status::skip);
  EXPECT_EQ(none.reason_code, "not_configured");
  EXPECT_THROW(parse_network_params(json{{"endpoints", json::array({json{{"connect", "nohostport"}}})}}, "t"),
               InputError);
  EXPECT_THROW(parse_network_params(
                   json{{"endpoints", json::array({json{{"connect", "h:1"}, {"url", "http://h/"}}})}}, "t"),
               InputError);
  EXPECT_THROW(parse_network_params(json{{"endpoints", json::array({json{{"url", "ftp://h/"}}})}}, "t"),
               InputError);
}

}  // namespace
}  // namespace gpuqual::probes

namespace gpuqual::probes {
namespace {

TEST(NetworkCheck, ShippedSiteFileParses) {
  const NetworkConfig c =
      parse_network_params(json{{"site_file", GPUQUAL_SOURCE_DIR "/containers/k8s/site.yaml"}}, "test");
  ASSERT_EQ(c.endpoints.size(), 2u);
  EXPECT_EQ(c.endpoints[1].net.port, 443);
}

}  // namespace
}  // namespace gpuqual::probes
