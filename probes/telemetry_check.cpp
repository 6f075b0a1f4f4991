#include "probes/telemetry_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/base/json_fields.hpp"
#include "core/record/metric_summary.hpp"
#include "probes/http_client.hpp"
#include "probes/prometheus_text.hpp"

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
    o.fail(c.url_from.empty() ? "url" : "url_env", fmt::format("'{}'{} is not an http:// or https:// URL", c.url,
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

CheckResult run_telemetry(const TelemetryConfig& config, const std::vector<GpuInfo>& node_gpus,
                          const std::string& no_gpu_reason, const std::atomic<bool>* stop) {
  CheckResult r;
  r.name = "telemetry";
  r.attributes["url"] = config.url;
  if (!config.url_from.empty()) r.attributes["url_from"] = config.url_from;
  r.attributes["series"] = fmt::format("{}", fmt::join(config.series, ","));
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
    return r;
  }
  const double scrape_s = elapsed();
  r.duration_s = scrape_s;
  if (resp.status != 200) {
    r.status = Status::error;
    r.reason = fmt::format("{} answered HTTP {}", config.url, resp.status);
    return r;
  }
  if (resp.truncated) {
    r.status = Status::error;
    r.reason = fmt::format("{} answered more than {} bytes", config.url, config.max_bytes);
    return r;
  }
  r.metrics.push_back(summarize_metric("telemetry.scrape_time", "ms", Direction::lower, std::nullopt, {scrape_s * 1000}));

  PromDocument doc;
  try {
    doc = parse_prometheus_text(resp.body);
  } catch (const PromParseError& e) {
    r.status = Status::fail;
    r.reason = fmt::format("{} is not valid Prometheus text: {}", config.url, e.what());
    Finding f;
    f.code = "telemetry.malformed";
    f.severity = Severity::fail;
    f.detail = r.reason;
    r.findings.push_back(std::move(f));
    return r;
  }
  r.attributes["samples"] = std::to_string(doc.samples.size());

  std::vector<TelemetryGpu> gpus;
  if (!config.gpu_uuids.empty()) {
    for (std::size_t i = 0; i < config.gpu_uuids.size(); ++i) gpus.push_back({static_cast<int>(i), config.gpu_uuids[i]});
    r.attributes["gpus_from"] = "parameters";
  } else {
    for (const auto& g : node_gpus) gpus.push_back({g.index, g.uuid});
    r.attributes["gpus_from"] = "inventory";
  }
  if (gpus.empty()) {
    r.status = Status::skip;
    r.reason = fmt::format("this node has no GPU{}: nothing to check the {} samples against",
                           no_gpu_reason.empty() ? "" : " (" + no_gpu_reason + ")", doc.samples.size());
    return r;
  }
  for (const auto& g : gpus) {
    if (g.uuid.empty()) {
      r.status = Status::error;
      r.reason = fmt::format("GPU {} has no UUID in the inventory: cannot match its telemetry", g.index);
      return r;
    }
  }
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
