#include "probes/telemetry/telemetry_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/base/json_fields.hpp"
#include "core/record/metric_summary.hpp"
#include "probes/http_client.hpp"
#include "probes/telemetry/prometheus_text.hpp"

namespace gpuqual::probes {

TelemetryConfig parse_telemetry_params(const nlohmann::json& params, const std::string& origin) {
  JsonObject o(params, origin, "$");
  TelemetryConfig c;
  c.url = o.str_or("url", c.url);
  // url_env: the name of an environment variable that, when set and not empty, replaces `url`.
  // In a pod dcgm-exporter listens on the node's address, which only the pod's environment
  // knows (the downward API's status.hostIP; containers/k8s).
  const std::string url_env = o.str_or("url_env", "");
  if (!url_env.empty()) {
    if (const char* v = std::getenv(url_env.c_str()); v != nullptr && *v != '\0') {
      c.url = v;
      c.url_from = "$" + url_env;
    }
  }
  if (c.url.rfind("http://", 0) != 0 && c.url.rfind("https://", 0) != 0)
    o.fail(c.url_from.empty() ? "url" : "url_env",
           fmt::format("'{}'{} is not an http:// or https:// URL", c.url,
                       c.url_from.empty() ? "" : " (from " + c.url_from + ")"));
  if (o.has("series")) {
    c.series = o.string_array("series");
    if (c.series.empty()) o.fail("series", "at least one series is needed");
  }
  c.timeout_s = o.opt_number("timeout_s", 0.1, 600).value_or(c.timeout_s);
  if (o.has("uuid_labels")) {
    c.uuid_labels = o.string_array("uuid_labels");
    if (c.uuid_labels.empty()) o.fail("uuid_labels", "at least one label key is needed");
  }
  if (o.has("gpu_uuids")) c.gpu_uuids = o.string_array("gpu_uuids");
  o.finish();
  return c;
}

namespace {

// The endpoint's answer, when it is a whole 200 (else `r` says why: an error, not the node's
// telemetry failing). Times the scrape into r.duration_s.
std::optional<HttpResponse> scrape(const TelemetryConfig& config, const std::atomic<bool>* stop,
                                   CheckResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  HttpRequest req;
  req.url = config.url;
  req.timeout_s = config.timeout_s;
  req.connect_timeout_s = std::min(config.timeout_s, 5.0);
  req.max_body = config.max_bytes;
  req.stop = stop;
  req.headers = {"Accept: text/plain;version=0.0.4"};
  HttpResponse resp;
  try {
    resp = http_request(req);
  } catch (const HttpError& e) {
    r.status = Status::error;
    r.reason = fmt::format("telemetry endpoint unreachable: {}", e.what());
    r.duration_s = elapsed();
    return std::nullopt;
  }
  r.duration_s = elapsed();
  if (resp.status != 200) {
    r.status = Status::error;
    r.reason = fmt::format("{} answered HTTP {}", config.url, resp.status);
    return std::nullopt;
  }
  if (resp.truncated) {
    r.status = Status::error;
    r.reason = fmt::format("{} answered more than {} bytes", config.url, config.max_bytes);
    return std::nullopt;
  }
  r.metrics.push_back(
      summarize_metric("telemetry.scrape_time", "ms", Direction::lower, std::nullopt, {r.duration_s * 1000}));
  return resp;
}

// The GPUs to find in the telemetry: the parameters' UUIDs when given, else the inventory's.
std::vector<TelemetryGpu> gpus_to_check(const TelemetryConfig& config, const std::vector<GpuInfo>& node_gpus,
                                        CheckResult& r) {
  std::vector<TelemetryGpu> gpus;
  if (!config.gpu_uuids.empty()) {
    for (std::size_t i = 0; i < config.gpu_uuids.size(); ++i)
      gpus.push_back({static_cast<int>(i), config.gpu_uuids[i]});
    r.attributes["gpus_from"] = "parameters";
  } else {
    for (const auto& g : node_gpus) gpus.push_back({g.index, g.uuid});
    r.attributes["gpus_from"] = "inventory";
  }
  return gpus;
}

// False (and `r` says why) when there is nothing to match: no GPU, or one without a UUID.
bool gpus_can_be_matched(const std::vector<TelemetryGpu>& gpus, const std::string& no_gpu_reason,
                         std::size_t samples, CheckResult& r) {
  if (gpus.empty()) {
    r.status = Status::skip;
    r.reason = fmt::format("this node has no GPU{}: nothing to check the {} samples against",
                           no_gpu_reason.empty() ? "" : " (" + no_gpu_reason + ")", samples);
    return false;
  }
  for (const auto& g : gpus) {
    if (g.uuid.empty()) {
      r.status = Status::error;
      r.reason = fmt::format("GPU {} has no UUID in the inventory: cannot match its telemetry", g.index);
      return false;
    }
  }
  return true;
}

}  // namespace

CheckResult run_telemetry(const TelemetryConfig& config, const std::vector<GpuInfo>& node_gpus,
                          const std::string& no_gpu_reason, const std::atomic<bool>* stop) {
  CheckResult r;
  r.name = "telemetry";
  r.attributes["url"] = config.url;
  if (!config.url_from.empty()) r.attributes["url_from"] = config.url_from;
  r.attributes["series"] = fmt::format("{}", fmt::join(config.series, ","));

  const std::optional<HttpResponse> resp = scrape(config, stop, r);
  if (!resp) return r;
  PromDocument doc;
  try {
    doc = parse_prometheus_text(resp->body);
  } catch (const PromParseError& e) {
    r.status = Status::fail;
    r.reason = fmt::format("{} is not valid Prometheus text: {}", config.url, e.what());
    r.findings.push_back(
        Finding{.code = "telemetry.malformed", .severity = Severity::fail, .detail = r.reason});
    return r;
  }
  r.attributes["samples"] = std::to_string(doc.samples.size());

  const std::vector<TelemetryGpu> gpus = gpus_to_check(config, node_gpus, r);
  if (!gpus_can_be_matched(gpus, no_gpu_reason, doc.samples.size(), r)) return r;
  const TelemetryJudgement j = judge_telemetry(doc, gpus, config.series, config.uuid_labels);
  r.status = j.status;
  r.reason = j.reason;
  r.per_gpu = j.per_gpu;
  r.findings.insert(r.findings.end(), j.findings.begin(), j.findings.end());
  r.metrics.push_back(summarize_metric("telemetry.series_present", "count", Direction::higher, std::nullopt,
                                       {static_cast<double>(j.present_pairs)}));
  r.attributes["series_expected"] = std::to_string(j.expected_pairs);
  return r;
}

}  // namespace gpuqual::probes
