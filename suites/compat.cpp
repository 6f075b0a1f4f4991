// `compat`: the CUDA/driver compatibility preflight. Judges the host driver against the CUDA
// runtime gpuqual carries and against the images named in the suite (their CUDA_VERSION and
// NVIDIA_REQUIRE_* environment, as `docker image inspect` shows it), with the table in
// baselines/cuda-compat.yaml (NVIDIA release notes) and the minor-version and forward-
// compatibility rules; every finding says which rule decided. A too-old driver fails with the
// minimum named. Needs no GPU time, only the driver's version.
//
// Parameters (suite YAML):
//   images: [{name: nvcr.io/nvidia/pytorch:25.01-py3, env: ["CUDA_VERSION=12.8.0",
//   "NVIDIA_REQUIRE_CUDA=cuda>=12.8 ..."]},
//            {name: my/app:1, cuda_version: "12.4.1", require_cuda: "cuda>=12.4 ..."}]
//   forward_compat_dir: where gpuqual's own image keeps cuda-compat (default /usr/local/cuda/compat)
//   tables_dir: where cuda-compat.yaml is (default: the baselines directory)
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/base/json_fields.hpp"
#include "core/compat/cuda_compat.hpp"
#include "core/compat/cuda_compat_forward.hpp"
#include "core/compat/cuda_compat_image.hpp"
#include "core/compat/cuda_compat_reexec.hpp"
#include "core/rules/health_severity.hpp"
#include "device/node/compat_facts.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

struct ImageSpec {
  std::string name;
  std::vector<std::string> env;
};

struct CompatParams {
  std::vector<ImageSpec> images;
  std::string forward_compat_dir = "/usr/local/cuda/compat";
  std::string tables_dir;
};

CompatParams read_compat_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  CompatParams p;
  if (const nlohmann::json* images = o.opt_array("images")) {
    const std::string ip = o.child_path("images");
    for (std::size_t i = 0; i < images->size(); ++i) {
      JsonObject img((*images)[i], "suite", JsonObject::index_path(ip, i));
      ImageSpec s;
      s.name = img.nonempty_str("name");
      if (img.has("env")) s.env = img.string_array("env");
      if (img.has("cuda_version")) s.env.push_back("CUDA_VERSION=" + img.str("cuda_version"));
      if (img.has("require_cuda")) s.env.push_back("NVIDIA_REQUIRE_CUDA=" + img.str("require_cuda"));
      if (s.env.empty()) img.fail("", "an image needs env, cuda_version or require_cuda");
      img.finish();
      p.images.push_back(std::move(s));
    }
  }
  p.forward_compat_dir = o.str_or("forward_compat_dir", p.forward_compat_dir);
  p.tables_dir = o.str_or("tables_dir", "");
  o.finish();
  return p;
}

// cuda-compat for gpuqual itself: the package puts libcuda.so.* in <toolkit>/compat.
bool has_cuda_compat_libs(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return false;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().starts_with("libcuda.so")) return true;
  }
  return false;
}

// Roll-up: a skipped image (not a CUDA image) does not hide the others' verdicts.
Status roll_up(Status acc, Status next) {
  if (next == Status::skip) return acc;
  if (acc == Status::skip) return next;
  return worse_of(acc, next);
}

class CompatCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    CheckResult r;
    r.name = "compat";
    const CompatParams p = read_compat_params(ctx.params);
    const std::string table_path = severity_tables_dir(p.tables_dir) + "/" + kCudaCompatFile;
    const CudaCompatTable table = load_cuda_compat_table(table_path);
    r.attributes["compat_table"] = table_path;

    const CompatFacts facts = collect_compat_facts();
    r.attributes["driver_version"] = facts.host.driver_text;
    r.attributes["cuda_driver_version"] = facts.host.cuda ? facts.host.cuda->str() : "";
    r.attributes["cuda_runtime_version"] = facts.runtime ? facts.runtime->str() : "";
    if (!facts.runtime) {
      r.status = Status::error;
      r.reason = "cudaRuntimeGetVersion failed: the CUDA runtime gpuqual carries is unusable";
      return r;
    }
    const bool compat_libs = has_cuda_compat_libs(p.forward_compat_dir);
    // Which user-mode driver this process measures with: the forward-compat one when gpuqual
    // re-executed itself with it (core/compat/cuda_compat_reexec.hpp), else the host's.
    if (const char* active = std::getenv(kForwardCompatActiveEnv)) {
      r.attributes["user_mode_driver"] =
          fmt::format("forward-compat {} ({})", forward_compat_libcuda_version(active), active);
    } else {
      r.attributes["user_mode_driver"] = fmt::format("host {}", facts.host.driver_text);
    }
    {
      const char* proc = std::getenv("GPUQUAL_PROC_DRIVER_DIR");
      const ForwardCompatDecision fc =
          decide_forward_compat(read_forward_compat_host(proc && *proc ? proc : "/proc/driver/nvidia"),
                                compat_libs, p.forward_compat_dir);
      r.attributes["forward_compat_rule"] = fc.rule;
    }
    ImageCompat runtime = judge_runtime(*facts.runtime, table, facts.host, compat_libs);
    r.attributes["runtime_rule"] = runtime.rule;
    r.findings = runtime.findings;
    if (runtime.status == Status::skip) {
      // No driver: nothing below can be judged either.
      r.status = Status::skip;
      r.reason = runtime.reason + (facts.nvml_note.empty() ? "" : " (NVML: " + facts.nvml_note + ")");
      return r;
    }
    Status status = runtime.status;
    std::vector<std::string> reasons;
    if (runtime.status != Status::pass) reasons.push_back(runtime.reason);
    for (const auto& img : p.images) {
      ImageCompat ic = judge_image(img.name, parse_image_cuda_env(img.env), table, facts.host, facts.gpus);
      status = roll_up(status, ic.status);
      if (ic.status != Status::pass) reasons.push_back(ic.reason);
      for (auto& f : ic.findings) r.findings.push_back(std::move(f));
      r.attributes["image." + img.name] = std::string(to_string(ic.status)) + ": " + ic.rule;
    }
    r.status = status;
    r.reason = reasons.empty()
                   ? fmt::format("driver {} runs CUDA {} ({}){}", facts.host.driver_text,
                                 facts.runtime->str(), runtime.rule,
                                 p.images.empty() ? "" : fmt::format(" and {} image(s)", p.images.size()))
                   : fmt::format("{}", fmt::join(reasons, "; "));
    return r;
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(
    CompatCheck, "compat",
    "CUDA/driver compatibility preflight: host driver vs gpuqual's CUDA runtime and the suite's "
    "images (CUDA_VERSION, NVIDIA_REQUIRE_CUDA), saying which rule decided");

}  // namespace gpuqual
