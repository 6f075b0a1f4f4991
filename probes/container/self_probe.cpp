#include "probes/container/self_probe.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <vector>

namespace gpuqual::probes {

namespace {

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

Finding make_finding(std::string code, std::string detail, std::optional<int> gpu = std::nullopt,
                     std::string action = {}) {
  return Finding{
      .code = std::move(code),
      .severity = Severity::fail,
      .gpu = gpu,
      .detail = std::move(detail),
      .action = std::move(action),
  };
}

std::string str_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

// The JSON is the last line that starts with '{' (an entrypoint may print before it); a
// discarded value when there is none.
nlohmann::json last_json_line(const std::string& output) {
  std::size_t end = output.size();
  while (end > 0) {
    const std::size_t start = output.rfind('\n', end - 1);
    const std::size_t from = start == std::string::npos ? 0 : start + 1;
    if (from < output.size() && output[from] == '{')
      return nlohmann::json::parse(output.substr(from, end - from), nullptr, false);
    if (start == std::string::npos) break;
    end = start;
  }
  return {};
}

// The driver and devices the program saw, as attributes; a finding for each GPU whose tiny kernel
// failed. Returns those failures ("GPU 1: wrong result ...").
std::vector<std::string> read_devices(const nlohmann::json& doc, const nlohmann::json& devices,
                                      SelfProbeJudgement& j) {
  j.attributes["visible_gpus"] = std::to_string(devices.size());
  j.attributes["libcuda"] = str_or(doc, "libcuda", "");
  j.attributes["cuda_driver"] = str_or(doc, "cuda_driver_version", "-");
  j.attributes["cudart"] = str_or(doc, "cudart_version", "-");
  if (doc.contains("dev_nodes") && doc["dev_nodes"].is_number_integer())
    j.attributes["dev_nodes"] = std::to_string(doc["dev_nodes"].get<int>());
  std::vector<std::string> names, failed_kernels;
  for (const auto& d : devices) {
    const int index = d.contains("index") && d["index"].is_number_integer() ? d["index"].get<int>() : -1;
    names.push_back(fmt::format("{} {} ({}, cc {})", index, str_or(d, "name", "?"), str_or(d, "uuid", "?"),
                                str_or(d, "cc", "?")));
    const std::string k = str_or(d, "kernel", "not run");
    if (k != "ok") {
      failed_kernels.push_back(fmt::format("GPU {}: {}", index, k));
      j.findings.push_back(make_finding(
          "container.kernel_failed",
          fmt::format("the tiny kernel on container GPU {} ({}): {}", index, str_or(d, "uuid", "?"), k),
          std::nullopt, "run the health and memtest checks on this GPU"));
    }
  }
  if (!names.empty()) j.attributes["gpus"] = fmt::format("{}", fmt::join(names, "; "));
  if (!devices.empty())
    j.attributes["kernel"] = failed_kernels.empty() ? fmt::format("ok on {} GPU(s)", devices.size())
                                                    : fmt::format("{}", fmt::join(failed_kernels, "; "));
  return failed_kernels;
}

// The GPUs asked for against what the container saw: its driver library, cuInit, the devices and
// their kernels, in that order (the first that is missing is the reason).
void judge_requested_gpus(const GpuRequest& requested, const nlohmann::json& doc, std::size_t devices,
                          const std::vector<std::string>& failed_kernels, SelfProbeJudgement& j) {
  const std::string asked = requested.to_string();
  const std::string libcuda = str_or(doc, "libcuda", "");
  const std::string init_error = str_or(doc, "init_error", "");
  const char* toolkit = "check the NVIDIA Container Toolkit / CDI spec and the runtime's GPU configuration";
  if (libcuda != "loaded") {
    j.status = Status::fail;
    j.reason =
        fmt::format("GPU requested ({}) but the container has no CUDA driver library: {}", asked, libcuda);
    j.findings.push_back(make_finding("container.gpu_not_visible", j.reason, std::nullopt, toolkit));
  } else if (!init_error.empty()) {
    j.status = Status::fail;
    j.reason = fmt::format("GPU requested ({}) but cuInit failed in the container: {}", asked, init_error);
    j.findings.push_back(
        make_finding("container.cuda_init_failed", j.reason, std::nullopt,
                     "compare the driver inside the container with the host's (driver/library mismatch)"));
  } else if (devices == 0 ||
             (requested.kind == GpuRequest::Kind::count && static_cast<int>(devices) < requested.count)) {
    j.status = Status::fail;
    j.reason = fmt::format("GPU requested ({}) but the container sees {}", asked,
                           devices == 0 ? "none" : fmt::format("only {}", devices));
    j.findings.push_back(make_finding("container.gpu_not_visible", j.reason, std::nullopt, toolkit));
  } else if (!failed_kernels.empty()) {
    j.status = Status::fail;
    j.reason = fmt::format("kernel failed in the container: {}", fmt::join(failed_kernels, "; "));
  } else {
    j.status = Status::pass;
  }
}

}  // namespace

std::string find_container_probe_program() {
  if (const char* env = std::getenv("GPUQUAL_CONTAINER_PROBE"); env && *env)
    return executable(env) ? env : "";
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<std::size_t>(n));
  const std::string dir = exe.substr(0, exe.rfind('/'));
  for (const std::string& candidate :
       {dir + "/gpuqual-container-probe", dir + "/../libexec/gpuqual/gpuqual-container-probe"})
    if (executable(candidate)) return candidate;
  return "";
}

SelfProbeJudgement judge_self_probe(const std::string& output, const GpuRequest& requested) {
  SelfProbeJudgement j;
  const nlohmann::json doc = last_json_line(output);
  if (!doc.is_object() || str_or(doc, "schema", "") != "gpuqual.container-probe/v1") {
    j.status = Status::error;
    std::string head = output.substr(0, 200);
    while (!head.empty() && (head.back() == '\n' || head.back() == '\r')) head.pop_back();
    j.reason =
        fmt::format("gpuqual's probe program printed no result (does the image have glibc >= 2.34?): {}",
                    head.empty() ? "no output" : head);
    return j;
  }
  const nlohmann::json devices =
      doc.contains("devices") && doc["devices"].is_array() ? doc["devices"] : nlohmann::json::array();
  const std::vector<std::string> failed_kernels = read_devices(doc, devices, j);
  if (!requested.requested()) {
    // Nothing was asked for: what the container saw is information, not a verdict.
    j.status = Status::pass;
    return j;
  }
  judge_requested_gpus(requested, doc, devices.size(), failed_kernels, j);
  return j;
}

}  // namespace gpuqual::probes
