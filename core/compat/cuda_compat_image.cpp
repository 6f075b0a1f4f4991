#include "core/compat/cuda_compat_image.hpp"

#include <fmt/format.h>

#include "core/base/input_error.hpp"

namespace gpuqual {

namespace {

Finding finding(const std::string& code, Severity sev, std::string detail, std::string action = "") {
  return Finding{.code = code, .severity = sev, .detail = std::move(detail), .action = std::move(action)};
}

Severity severity_for(Status s) {
  if (s == Status::fail) return Severity::fail;
  if (s == Status::warn) return Severity::warn;
  return Severity::info;
}

std::string code_for(CompatRule rule) {
  switch (rule) {
    case CompatRule::too_old:
      return "compat.driver_too_old";
    case CompatRule::minor_version:
      return "compat.minor_version";
    case CompatRule::forward_compat:
      return "compat.forward_compat";
    case CompatRule::unknown_release:
      return "compat.unknown_release";
    case CompatRule::no_driver:
      return "compat.no_driver";
    case CompatRule::toolkit_table:
    case CompatRule::driver_reports_cuda:
      return "compat.supported";
  }
  return "compat.supported";
}

std::string action_for(const CompatDecision& d) {
  switch (d.rule) {
    case CompatRule::too_old:
      return "upgrade the driver to " +
             (d.minimum_driver.empty() ? d.minor_minimum_driver : d.minimum_driver) +
             " or later, or use an image built with an older CUDA";
    case CompatRule::minor_version:
      return "upgrade the driver to " + d.minimum_driver + " for full compatibility";
    case CompatRule::forward_compat:
      return "keep the image's cuda-compat libraries; data-center GPUs only";
    case CompatRule::unknown_release:
      return "add the release to baselines/cuda-compat.yaml from NVIDIA's release notes";
    default:
      return "";
  }
}

// Go strconv.ParseBool's true spellings, as the toolkit reads NVIDIA_DISABLE_REQUIRE.
bool go_parse_bool_true(const std::string& v) {
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
}

}  // namespace

ImageCudaEnv parse_image_cuda_env(const std::vector<std::string>& env) {
  ImageCudaEnv e;
  bool has_require_cuda = false;
  for (const auto& line : env) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = line.substr(0, eq);
    const std::string value = line.substr(eq + 1);
    if (name == "CUDA_VERSION")
      e.cuda_version = value;
    else if (name == "NVIDIA_DISABLE_REQUIRE")
      e.require_disabled = go_parse_bool_true(value);
    else if (name == "NVIDIA_DISABLE_REQUIRES")
      e.misspelt_disable = true;
    else if (name.starts_with("NVIDIA_REQUIRE_") && name != "NVIDIA_REQUIRE_JETPACK") {
      e.requirements.emplace_back(name, value);
      has_require_cuda = has_require_cuda || name == "NVIDIA_REQUIRE_CUDA";
    }
  }
  if (!has_require_cuda && !e.cuda_version.empty()) {
    // The toolkit's legacy rule (cuda_image.go: IsLegacy/legacyVersion): cuda>=<major>.<minor>.
    if (auto v = DottedVersion::parse(e.cuda_version)) {
      e.legacy = true;
      e.requirements.emplace_back("NVIDIA_REQUIRE_CUDA", "cuda>=" + v->major_minor().str());
    }
  }
  return e;
}

ImageCompat judge_runtime(const DottedVersion& runtime, const CudaCompatTable& table, const HostDriver& host,
                          bool forward_compat_available) {
  ImageCompat out;
  CompatDecision d = judge_cuda_on_driver(table, runtime, host, forward_compat_available);
  out.status = d.status;
  out.rule = std::string(to_string(d.rule));
  out.reason = "gpuqual's CUDA runtime " + runtime.str() + ": " + d.explanation;
  out.findings.push_back(
      finding(code_for(d.rule), severity_for(d.status),
              fmt::format("gpuqual's CUDA runtime {} ({}): {}", runtime.str(), out.rule, d.explanation),
              action_for(d)));
  return out;
}

ImageCompat judge_image(const std::string& image, const ImageCudaEnv& env, const CudaCompatTable& table,
                        const HostDriver& host, const std::vector<RequireFacts>& gpus) {
  ImageCompat out;
  const std::string who = "image " + image;
  if (env.cuda_version.empty() && env.requirements.empty()) {
    out.status = Status::skip;
    out.rule = "not a CUDA image";
    out.reason = who + " sets neither CUDA_VERSION nor NVIDIA_REQUIRE_CUDA";
    return out;
  }
  if (env.misspelt_disable) {
    out.findings.push_back(finding(
        "compat.require_misspelt", Severity::warn,
        who + " sets NVIDIA_DISABLE_REQUIRES, which has no effect (the toolkit reads NVIDIA_DISABLE_REQUIRE)",
        "spell it NVIDIA_DISABLE_REQUIRE, or remove it"));
  }

  // What the NVIDIA Container Toolkit would decide at container creation.
  bool require_ok = true, via_branch = false;
  std::string require_note;
  if (env.require_disabled) {
    out.findings.push_back(
        finding("compat.require_disabled", Severity::warn,
                who + " sets NVIDIA_DISABLE_REQUIRE: the toolkit checks no requirement, a too-new "
                      "image fails at its first CUDA call instead of at creation"));
  } else {
    for (const auto& [name, value] : env.requirements) {
      const RequireExpression expr = parse_nvidia_require(value, "image " + image + " env " + name);
      const RequireOutcome r = evaluate_require(expr, gpus);
      if (!r.satisfied) {
        require_ok = false;
        require_note = fmt::format("{}{}: unsatisfied condition: {}", name,
                                   env.legacy ? " (synthesized from CUDA_VERSION)" : "", r.first_term);
        break;
      }
      via_branch = via_branch || r.via_branch_clause;
      if (name == "NVIDIA_REQUIRE_CUDA") require_note = name + " " + r.explanation;
    }
  }

  // What CUDA_VERSION needs from the driver (the image's compat libraries count as forward
  // compatibility only when the requirement itself allowed this driver branch).
  std::optional<CompatDecision> d;
  if (!env.cuda_version.empty()) {
    auto v = DottedVersion::parse(env.cuda_version);
    if (!v)
      throw InputError("image " + image + " env CUDA_VERSION", "",
                       "'" + env.cuda_version + "' is not a version");
    d = judge_cuda_on_driver(table, *v, host, via_branch);
  }

  if (!require_ok) {
    out.status = Status::fail;
    out.rule = "NVIDIA_REQUIRE_CUDA (container toolkit)";
    out.reason = fmt::format("{}: the NVIDIA Container Toolkit refuses it: {}{}", who, require_note,
                             d ? "; " + d->explanation : "");
    out.findings.push_back(finding("compat.require_unsatisfied", Severity::fail, out.reason,
                                   d ? action_for(*d) : "upgrade the driver or use an earlier CUDA image"));
    return out;
  }
  if (!d) {
    out.status = Status::pass;
    out.rule = "NVIDIA_REQUIRE_CUDA (container toolkit)";
    out.reason = who + ": " + (require_note.empty() ? "requirements satisfied" : require_note);
    out.findings.push_back(finding("compat.supported", Severity::info, out.reason));
    return out;
  }
  out.status = d->status;
  out.rule = std::string(to_string(d->rule));
  out.reason = fmt::format("{} (CUDA {}): {} [{}]{}", who, env.cuda_version, d->explanation, out.rule,
                           require_note.empty() ? "" : "; " + require_note);
  out.findings.push_back(finding(code_for(d->rule), severity_for(d->status), out.reason, action_for(*d)));
  for (const auto& f : out.findings) {
    if (f.severity == Severity::warn && out.status == Status::pass) out.status = Status::warn;
  }
  return out;
}

}  // namespace gpuqual
