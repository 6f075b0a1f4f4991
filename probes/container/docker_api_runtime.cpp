#include "probes/container/docker_api_runtime.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "probes/container/image_digest.hpp"
#include "probes/container/names.hpp"
#include "probes/http_client.hpp"

namespace gpuqual::probes {

namespace {

using nlohmann::json;

// The message of a Docker API error body ({"message": "..."}), or the raw body.
std::string api_message(const HttpResponse& r) {
  const json j = json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string())
    return j["message"].get<std::string>();
  std::string body = r.body.substr(0, 300);
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  return body.empty() ? fmt::format("HTTP {}", r.status) : body;
}

}  // namespace

DockerApiRuntime::DockerApiRuntime(DockerApiOptions options) : options_(std::move(options)) {
  if (options_.gpu_style != "device-request" && options_.gpu_style != "cdi")
    throw std::invalid_argument(
        fmt::format("unknown gpu style '{}' (device-request or cdi)", options_.gpu_style));
}

std::string DockerApiRuntime::describe() const {
  return fmt::format("docker-api unix://{}", options_.socket);
}

namespace {

HttpResponse call(const DockerApiOptions& o, const std::string& method, const std::string& path,
                  std::string body = {}, double timeout_s = 0, std::size_t max_body = 16u << 20,
                  const std::atomic<bool>* stop = nullptr) {
  HttpRequest req;
  req.method = method;
  req.url = "http://docker" + path;
  req.unix_socket = o.socket;
  req.body = std::move(body);
  if (!req.body.empty()) req.headers.push_back("Content-Type: application/json");
  req.timeout_s = timeout_s > 0 ? timeout_s : o.request_timeout_s;
  req.max_body = max_body;
  req.stop = stop;
  try {
    return http_request(req);
  } catch (const HttpError& e) {
    if (e.kind() == HttpError::Kind::connect) throw RuntimeUnavailable(e.what());
    throw;
  }
}

}  // namespace

std::string DockerApiRuntime::version() {
  HttpResponse r;
  try {
    r = call(options_, "GET", "/version", {}, 10);
  } catch (const HttpError& e) {
    throw RuntimeUnavailable(fmt::format("{} does not answer: {}", describe(), e.what()));
  }
  if (r.status != 200)
    throw RuntimeUnavailable(fmt::format("{}: GET /version: {}", describe(), api_message(r)));
  const json j = json::parse(r.body, nullptr, false);
  if (!j.is_object())
    throw RuntimeUnavailable(fmt::format("{}: GET /version: not a Docker API answer", describe()));
  std::string product = "Docker Engine";
  if (j.contains("Components") && j["Components"].is_array() && !j["Components"].empty()) {
    const auto& c0 = j["Components"][0];
    if (c0.contains("Name") && c0["Name"].is_string() && c0["Name"].get<std::string>() != "Engine")
      product = c0["Name"].get<std::string>();
  }
  const std::string ver = j.value("Version", std::string("unknown"));
  return fmt::format("{} {} (API {})", product, ver, j.value("ApiVersion", std::string("?")));
}

std::optional<ImageInfo> DockerApiRuntime::inspect_image(const std::string& image) {
  require_image_reference(image);
  const HttpResponse r = call(options_, "GET", fmt::format("/images/{}/json", image));
  if (r.status == 404) return std::nullopt;
  if (r.status != 200) throw RuntimeError(fmt::format("inspect image {}: {}", image, api_message(r)));
  const json j = json::parse(r.body, nullptr, false);
  if (!j.is_object()) throw RuntimeError(fmt::format("inspect image {}: answer is not JSON", image));
  ImageInfo info;
  info.id = j.value("Id", std::string());
  info.repo_digests = repo_digests_of(j);
  if (j.contains("Config") && j["Config"].is_object() && j["Config"].contains("Env") &&
      j["Config"]["Env"].is_array()) {
    for (const auto& e : j["Config"]["Env"])
      if (e.is_string()) info.env.push_back(e.get<std::string>());
  }
  return info;
}

void DockerApiRuntime::pull_image(const std::string& image, double timeout_s) {
  require_image_reference(image);
  // Without a tag the API pulls every tag of the repository: say "latest" as the CLI does.
  std::string query = "fromImage=" + url_escape(image);
  if (image_tag_missing(image)) query += "&tag=latest";
  const HttpResponse r = call(options_, "POST", "/images/create?" + query, {}, timeout_s);
  if (r.status != 200) throw RuntimeError(fmt::format("pull {}: {}", image, api_message(r)));
  // Progress is a stream of JSON objects; a failure mid-way is an {"error": ...} object in a
  // 200 answer.
  std::size_t pos = 0;
  while (pos < r.body.size()) {
    std::size_t end = r.body.find('\n', pos);
    if (end == std::string::npos) end = r.body.size();
    const json line = json::parse(r.body.substr(pos, end - pos), nullptr, false);
    if (line.is_object() && line.contains("error"))
      throw RuntimeError(
          fmt::format("pull {}: {}", image,
                      line["error"].is_string() ? line["error"].get<std::string>() : line["error"].dump()));
    pos = end + 1;
  }
}

std::string DockerApiRuntime::create_body(const ContainerSpec& spec) const {
  json body = json::object();
  body["Image"] = spec.image;
  if (!spec.command.empty()) body["Cmd"] = spec.command;
  body["Env"] = spec.env;
  body["Labels"] = spec.labels;
  body["AttachStdin"] = false;
  body["AttachStdout"] = false;
  body["AttachStderr"] = false;
  body["Tty"] = false;
  json host = json::object();
  host["AutoRemove"] = false;  // see the header: wait for the exit code, then remove
  json binds = json::array();
  for (const auto& m : spec.mounts)
    binds.push_back(fmt::format("{}:{}:{}", m.source, m.target, m.read_only ? "ro" : "rw"));
  if (!binds.empty()) host["Binds"] = binds;
  if (spec.gpus.requested()) {
    json req = json::object();
    if (options_.gpu_style == "cdi") {
      req["Driver"] = "cdi";
      json ids = json::array();
      if (spec.gpus.kind == GpuRequest::Kind::all) {
        ids.push_back("nvidia.com/gpu=all");
      } else {
        for (int i = 0; i < spec.gpus.count; ++i) ids.push_back(fmt::format("nvidia.com/gpu={}", i));
      }
      req["DeviceIDs"] = ids;
    } else {
      req["Driver"] = "";
      req["Count"] = spec.gpus.kind == GpuRequest::Kind::all ? -1 : spec.gpus.count;
      req["Capabilities"] = json::array({json::array({"gpu"})});
    }
    host["DeviceRequests"] = json::array({req});
  }
  body["HostConfig"] = host;
  return body.dump();
}

void DockerApiRuntime::create(const ContainerSpec& spec) {
  require_container_name(spec.name);
  require_image_reference(spec.image);
  const HttpResponse r = call(
      options_, "POST", fmt::format("/containers/create?name={}", url_escape(spec.name)), create_body(spec));
  if (r.status != 201) throw RuntimeError(fmt::format("create: {}", api_message(r)));
}

void DockerApiRuntime::start(const std::string& name) {
  require_container_name(name);
  const HttpResponse r = call(options_, "POST", fmt::format("/containers/{}/start", name));
  if (r.status != 204 && r.status != 304) throw RuntimeError(fmt::format("start: {}", api_message(r)));
}

WaitResult DockerApiRuntime::wait(const std::string& name, double timeout_s, const std::atomic<bool>* stop) {
  require_container_name(name);
  WaitResult w;
  HttpResponse r;
  try {
    r = call(options_, "POST", fmt::format("/containers/{}/wait?condition=not-running", name), {}, timeout_s,
             1u << 20, stop);
  } catch (const HttpError& e) {
    if (e.kind() == HttpError::Kind::timeout) {
      w.outcome = WaitResult::Outcome::timed_out;
      return w;
    }
    if (e.kind() == HttpError::Kind::stopped) {
      w.outcome = WaitResult::Outcome::stopped;
      return w;
    }
    throw RuntimeError(fmt::format("wait: {}", e.what()));
  }
  if (r.status != 200) throw RuntimeError(fmt::format("wait: {}", api_message(r)));
  const json j = json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("StatusCode") || !j["StatusCode"].is_number_integer())
    throw RuntimeError(fmt::format("wait: unexpected answer: {}", r.body.substr(0, 200)));
  w.exit_code = j["StatusCode"].get<int>();
  if (j.contains("Error") && j["Error"].is_object() && j["Error"].contains("Message") &&
      j["Error"]["Message"].is_string())
    w.error = j["Error"]["Message"].get<std::string>();
  return w;
}

std::string demultiplex_docker_stream(const std::string& raw) {
  auto is_header = [&](std::size_t pos) {
    if (pos + 8 > raw.size()) return false;
    const auto t = static_cast<unsigned char>(raw[pos]);
    return t <= 2 && raw[pos + 1] == 0 && raw[pos + 2] == 0 && raw[pos + 3] == 0;
  };
  if (raw.empty() || !is_header(0)) return raw;  // TTY or not multiplexed
  std::string out;
  std::size_t pos = 0;
  while (pos < raw.size()) {
    if (!is_header(pos)) {
      // A cut header at the end (bounded read) or garbage: keep nothing of it.
      break;
    }
    const auto b = [&](std::size_t i) {
      return static_cast<std::uint32_t>(static_cast<unsigned char>(raw[pos + i]));
    };
    const std::size_t len = (b(4) << 24) | (b(5) << 16) | (b(6) << 8) | b(7);
    const std::size_t start = pos + 8;
    const std::size_t take = std::min(len, raw.size() - start);
    out.append(raw, start, take);
    pos = start + len;
  }
  return out;
}

ContainerOutput DockerApiRuntime::logs(const std::string& name, std::size_t max_bytes) {
  require_container_name(name);
  // Frame headers take 8 bytes per chunk: read a little more than the text we keep.
  const std::size_t raw_cap = max_bytes + max_bytes / 8 + 64;
  const HttpResponse r =
      call(options_, "GET", fmt::format("/containers/{}/logs?stdout=1&stderr=1", name), {}, 0, raw_cap);
  if (r.status != 200) throw RuntimeError(fmt::format("logs: {}", api_message(r)));
  ContainerOutput out;
  out.text = demultiplex_docker_stream(r.body);
  out.truncated = r.truncated;
  if (out.text.size() > max_bytes) {
    out.text.resize(max_bytes);
    out.truncated = true;
  }
  return out;
}

bool DockerApiRuntime::remove(const std::string& name) {
  require_container_name(name);
  // 409: a removal is already in progress (the janitor, or a daemon-side AutoRemove); ask again.
  for (int attempt = 0; attempt < 5; ++attempt) {
    const HttpResponse r = call(options_, "DELETE", fmt::format("/containers/{}?force=true&v=true", name));
    if (r.status == 204 || r.status == 200) return true;
    if (r.status == 404) return false;
    if (r.status != 409) throw RuntimeError(fmt::format("remove {}: {}", name, api_message(r)));
  }
  throw RuntimeError(fmt::format("remove {}: removal still in progress", name));
}

std::vector<LabelledContainer> DockerApiRuntime::list_by_label(const std::string& key) {
  const json filters = {{"label", json::array({key})}};
  const HttpResponse r =
      call(options_, "GET", "/containers/json?all=true&filters=" + url_escape(filters.dump()));
  if (r.status != 200) throw RuntimeError(fmt::format("list containers: {}", api_message(r)));
  const json j = json::parse(r.body, nullptr, false);
  if (!j.is_array()) throw RuntimeError("list containers: answer is not a JSON array");
  std::vector<LabelledContainer> out;
  for (const auto& c : j) {
    if (!c.is_object() || !c.contains("Names") || !c["Names"].is_array() || c["Names"].empty() ||
        !c["Names"][0].is_string())
      continue;
    LabelledContainer lc;
    lc.name = c["Names"][0].get<std::string>();
    if (!lc.name.empty() && lc.name[0] == '/') lc.name.erase(0, 1);
    if (c.contains("Labels") && c["Labels"].is_object())
      for (const auto& [k, v] : c["Labels"].items())
        if (v.is_string()) lc.labels[k] = v.get<std::string>();
    out.push_back(std::move(lc));
  }
  return out;
}

CleanupRecipe DockerApiRuntime::cleanup_recipe(const std::string& name) const {
  require_container_name(name);
  CleanupRecipe r;
  r.unix_socket = options_.socket;
  r.http_request = fmt::format(
      "DELETE /containers/{}?force=true&v=true HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n"
      "Content-Length: 0\r\n\r\n",
      name);
  return r;
}

}  // namespace gpuqual::probes
