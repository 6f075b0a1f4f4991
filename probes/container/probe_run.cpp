#include "probes/container/probe_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <regex>

#include "core/base/elapsed.hpp"
#include "core/base/plural.hpp"
#include "core/base/text_case.hpp"
#include "probes/container/container_janitor.hpp"
#include "probes/container/container_owner.hpp"
#include "probes/container/image_digest.hpp"
#include "probes/container/metric_lines.hpp"
#include "probes/container/names.hpp"
#include "probes/container/self_probe.hpp"

namespace gpuqual::probes {

namespace {

using Clock = std::chrono::steady_clock;

// A refusal that is about the GPU request (no NVIDIA runtime, no CDI spec, no driver), as
// dockerd ("could not select device driver \"\" with capabilities: [[gpu]]"), podman
// ("unresolvable CDI devices nvidia.com/gpu=all") and the NVIDIA hook ("nvidia-container-cli:
// initialization error", "requirement error") word it — not any message that names an image
// from nvcr.io/nvidia or a missing nvidia-smi.
bool about_gpu(const std::string& message) {
  const std::string m = to_lower(message);
  for (const char* k : {"device driver", "cdi device", "nvidia-container-cli", "nvidia-container-runtime",
                        "[[gpu]]", "nvidia.com/gpu", "requirement error", "no nvidia", "nvml"})
    if (m.find(k) != std::string::npos) return true;
  return false;
}

// The last `n` bytes of the output, for a finding's detail.
std::string tail(const std::string& s, std::size_t n = 300) {
  std::string t = s.size() > n ? "…" + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t;
}

void add_finding(ProbeOutcome& o, std::string code, Severity sev, std::string detail,
                 std::string action = {}) {
  o.findings.push_back(Finding{
      .code = std::move(code),
      .severity = sev,
      .detail = std::move(detail),
      .action = std::move(action),
  });
}

void set(ProbeOutcome& o, Status s, std::string reason) {
  o.status = s;
  o.reason = std::move(reason);
}

}  // namespace

void judge_exit_and_output(const ProbeSpec& spec, ProbeOutcome& o) {
  if (!o.exit_code) {
    set(o, Status::error, "no exit code");
    return;
  }
  if (*o.exit_code != spec.expect_exit) {
    set(o, Status::fail, fmt::format("exit code {}, expected {}", *o.exit_code, spec.expect_exit));
    add_finding(o, "container.exit_code", Severity::fail,
                fmt::format("{} ({}) exited with {} (expected {}); output: {}", spec.name, spec.image,
                            *o.exit_code, spec.expect_exit, tail(o.output)));
    o.findings.back().value = *o.exit_code;
    return;
  }
  if (!spec.expect_output.empty()) {
    bool found = false;
    try {
      found = std::regex_search(
          o.output, std::regex(spec.expect_output, std::regex::ECMAScript | std::regex::multiline));
    } catch (const std::regex_error& e) {
      set(o, Status::error,
          fmt::format("cannot search the output for /{}/: {}", spec.expect_output, e.what()));
      return;
    }
    if (!found) {
      set(o, Status::fail,
          fmt::format(
              "output does not match /{}/{}", spec.expect_output,
              o.output_truncated ? fmt::format(" (searched the first {} bytes)", o.output.size()) : ""));
      add_finding(o, "container.output_mismatch", Severity::fail,
                  fmt::format("{} ({}) output does not match /{}/; output: {}", spec.name, spec.image,
                              spec.expect_output, tail(o.output)));
      return;
    }
  }
  set(o, Status::pass, "");
}

void judge_self_probe_outcome(const ProbeSpec& spec, ProbeOutcome& o) {
  if (o.exit_code && *o.exit_code != 0) {
    set(o, Status::error,
        fmt::format("gpuqual's probe program exited with {} in this image: {}", *o.exit_code,
                    tail(o.output)));
    return;
  }
  SelfProbeJudgement j = judge_self_probe(o.output, spec.gpus);
  o.seen = std::move(j.attributes);
  for (auto& f : j.findings) {
    f.detail = fmt::format("{} ({}): {}", spec.name, spec.image, f.detail);
    o.findings.push_back(std::move(f));
  }
  if (j.status != Status::pass) {
    set(o, j.status, j.reason);
    return;
  }
  judge_exit_and_output(spec, o);  // exit code 0 and, if given, expect_output on its JSON
}

void read_image_metrics(const ProbeSpec& spec, ProbeOutcome& o) {
  if (spec.max_metric_lines == 0) return;
  MetricLines m = parse_metric_lines(o.output, o.output_truncated, slug(spec.name), spec.max_metric_lines);
  o.metric_lines = m.lines;
  o.metrics = std::move(m.metrics);
  if (m.findings.empty()) return;
  if (o.status == Status::pass)
    set(o, Status::warn,
        fmt::format("part{} of its gpuqual-metric output not read: {}", plural_s(m.findings.size()),
                    m.findings.front().detail));
  for (auto& f : m.findings) o.findings.push_back(std::move(f));
}

namespace {

// Step 1. The image: present locally, or pulled when asked. Never pulled implicitly: a probe
// measures the node as it is. nullopt (and `o` says why) when there is none to run.
std::optional<ImageInfo> find_image(ContainerRuntime& runtime, const ProbeSpec& spec, ProbeOutcome& o) {
  std::optional<ImageInfo> image;
  try {
    image = runtime.inspect_image(spec.image);
    if (!image && spec.pull) {
      runtime.pull_image(spec.image, spec.pull_timeout_s);
      image = runtime.inspect_image(spec.image);
    }
  } catch (const RuntimeUnavailable& e) {
    set(o, Status::error, e.what());
    return std::nullopt;
  } catch (const RuntimeError& e) {
    set(o, Status::error, e.what());
    return std::nullopt;
  }
  if (!image) {
    set(o, Status::error,
        fmt::format("image {} is not present on this node ({}); set pull to fetch it", spec.image,
                    runtime.describe()));
  }
  return image;
}

// Step 2. The CUDA requirement of the image against the host driver, before anything starts.
ImageCompatVerdict judge_image_compat(const ProbeSpec& spec, const ImageInfo& image, const ProbeContext& ctx,
                                      ProbeOutcome& o) {
  ImageCompatVerdict compat = check_image_compat(spec.image, image.env, ctx.host.compat);
  o.compat = fmt::format("{}: {}", to_string(compat.status), compat.summary);
  for (const auto& f : compat.findings)
    if (f.severity != Severity::info) o.findings.push_back(f);
  if (compat.status == Status::fail) set(o, Status::fail, compat.summary);
  return compat;
}

// Step 3a. The container to create: the probe's image and command, or gpuqual's own program
// mounted read-only for a self-probe. nullopt (and `o` says why) when that program is missing.
std::optional<ContainerSpec> container_spec(const ProbeSpec& spec, const ProbeContext& ctx, ProbeOutcome& o) {
  ContainerSpec cs;
  cs.name = container_name(ctx.run_id, spec.name, 0);
  cs.image = spec.image;
  cs.command = spec.command;
  cs.env = spec.env;
  cs.gpus = spec.gpus;
  cs.labels = {{kRunLabel, ctx.run_id}, {kProbeLabel, spec.name}, {kOwnerLabel, this_process_owner()}};
  if (spec.self_probe) {
    if (ctx.self_probe_program.empty()) {
      set(o, Status::error,
          "self-probe asked for, but gpuqual-container-probe was not found next to gpuqual "
          "(or $GPUQUAL_CONTAINER_PROBE)");
      return std::nullopt;
    }
    cs.mounts.push_back({ctx.self_probe_program, kSelfProbeTarget, true});
    cs.command = {kSelfProbeTarget};
  }
  return cs;
}

// A runtime's refusal to create or start the container, judged by what it is about: the GPU
// request (kept in `gpu_refusal` for step 5), a name collision, our own program, or the image.
void judge_start_refusal(const ProbeSpec& spec, const std::string& what, ProbeOutcome& o,
                         std::string& gpu_refusal) {
  if (spec.gpus.requested() && about_gpu(what)) {
    gpu_refusal = what;
    if (to_lower(what).find("requirement error") != std::string::npos) {
      set(o, Status::fail, fmt::format("the NVIDIA runtime refused the image: {}", what));
      add_finding(o, "container.cuda_incompatible", Severity::fail,
                  fmt::format("{} ({}): {}", spec.name, spec.image, what),
                  "upgrade the driver, or use an image built for an older CUDA");
    } else {
      set(o, Status::fail,
          fmt::format("GPU requested ({}) but the runtime could not provide it: {}", spec.gpus.to_string(),
                      what));
      add_finding(o, "container.gpu_unavailable", Severity::fail,
                  fmt::format("{} ({}): {}", spec.name, spec.image, what),
                  "check the NVIDIA Container Toolkit / CDI spec on the node");
    }
  } else if (to_lower(what).find("already in use") != std::string::npos ||
             to_lower(what).find("conflict") != std::string::npos) {
    set(o, Status::error, what);  // our naming collided: a harness problem, not the node's
  } else if (spec.self_probe) {
    // Our program could not be executed there (no glibc, a read-only or noexec mount): that
    // says nothing about the node.
    set(o, Status::error, fmt::format("gpuqual's probe program cannot run in this image: {}", what));
  } else {
    set(o, Status::fail, fmt::format("container did not start: {}", what));
    add_finding(o, "container.start_failed", Severity::fail,
                fmt::format("{} ({}): {}", spec.name, spec.image, what));
  }
}

// Step 3b. Create and start; true when it runs.
bool create_and_start(ContainerRuntime& runtime, const ContainerSpec& cs, const ProbeSpec& spec,
                      Clock::time_point t0, ProbeOutcome& o, std::string& gpu_refusal) {
  try {
    runtime.create(cs);
    o.created_s = seconds_since(t0);
    runtime.start(cs.name);
    o.started_s = seconds_since(t0);
    return true;
  } catch (const RuntimeUnavailable& e) {
    set(o, Status::error, e.what());
  } catch (const RuntimeError& e) {
    judge_start_refusal(spec, e.what(), o, gpu_refusal);
  }
  return false;
}

// The container exited: its output, judged as gpuqual's program's or as the probe asks.
void judge_exited(ContainerRuntime& runtime, const ContainerSpec& cs, const ProbeSpec& spec, int exit_code,
                  ProbeOutcome& o) {
  o.exit_code = exit_code;
  try {
    const ContainerOutput out = runtime.logs(cs.name, spec.max_output);
    o.output = out.text;
    o.output_truncated = out.truncated;
    if (spec.self_probe) {
      judge_self_probe_outcome(spec, o);
    } else {
      judge_exit_and_output(spec, o);
      read_image_metrics(spec, o);
    }
  } catch (const std::exception& e) {
    set(o, Status::error,
        fmt::format("exit code {} but the output could not be read: {}", exit_code, e.what()));
  }
}

// Step 3c. Wait for the exit (or the probe's timeout, or the run's stop) and judge it.
void wait_and_judge(ContainerRuntime& runtime, const ContainerSpec& cs, const ProbeSpec& spec,
                    const ProbeContext& ctx, Clock::time_point t0, ProbeOutcome& o) {
  try {
    const WaitResult w = runtime.wait(cs.name, spec.timeout_s, ctx.stop);
    o.exited_s = seconds_since(t0);
    if (w.outcome == WaitResult::Outcome::timed_out) {
      set(o, Status::fail, fmt::format("timed out: still running after {:g} s", spec.timeout_s));
      add_finding(
          o, "container.timeout", Severity::fail,
          fmt::format("{} ({}) did not exit within {:g} s; removed", spec.name, spec.image, spec.timeout_s));
    } else if (w.outcome == WaitResult::Outcome::stopped) {
      set(o, Status::error, "stopped: the run was interrupted");
    } else {
      judge_exited(runtime, cs, spec, w.exit_code, o);
    }
  } catch (const std::exception& e) {
    set(o, Status::error, fmt::format("waiting for the container: {}", e.what()));
  }
}

// Step 4. Remove it, whatever happened. If that fails the janitor keeps trying after we go.
void remove_container(ContainerRuntime& runtime, const std::string& name, ContainerJanitor& janitor,
                      ProbeOutcome& o) {
  try {
    runtime.remove(name);
    o.removed = true;
    janitor.dismiss();
  } catch (const std::exception& e) {
    janitor.release();
    if (o.status == Status::pass)
      set(o, Status::error, fmt::format("could not remove the container: {}", e.what()));
  }
}

// Step 5. A GPU was asked for on a node that has none: nothing the container did is a verdict on
// the node's container stack.
void skip_without_gpu(const ProbeSpec& spec, const ProbeContext& ctx, const std::string& gpu_refusal,
                      ProbeOutcome& o) {
  const bool node_without_gpu = ctx.host.has_gpus.has_value() && !*ctx.host.has_gpus;
  if (!spec.gpus.requested() || !node_without_gpu || o.status == Status::error) return;
  const std::string what = !gpu_refusal.empty() ? fmt::format("the runtime refused: {}", gpu_refusal)
                           : o.exit_code
                               ? fmt::format("the container ran without one and exited with {}", *o.exit_code)
                               : o.reason;
  o.findings.clear();
  set(o, Status::skip,
      fmt::format("GPU requested ({}) but this node has no GPU{}; {}", spec.gpus.to_string(),
                  ctx.host.no_gpu_reason.empty() ? "" : " (" + ctx.host.no_gpu_reason + ")", what));
}

}  // namespace

ProbeOutcome run_probe(ContainerRuntime& runtime, const ProbeSpec& spec, const ProbeContext& ctx) {
  ProbeOutcome o;
  o.probe = spec.name;
  o.image = spec.image;

  const std::optional<ImageInfo> image = find_image(runtime, spec, o);
  if (!image) return o;
  // The image by what it is, not by its tag: a tag can point at another image tomorrow.
  o.image_id = image->id;
  o.image_digest = pick_repo_digest(spec.image, image->repo_digests);

  const ImageCompatVerdict compat = judge_image_compat(spec, *image, ctx, o);
  if (compat.status == Status::fail) return o;

  // Step 3. Create under the janitor's watch, start, wait.
  const std::optional<ContainerSpec> cs = container_spec(spec, ctx, o);
  if (!cs) return o;
  o.container = cs->name;
  std::unique_ptr<ContainerJanitor> janitor;
  try {
    janitor = std::make_unique<ContainerJanitor>(runtime.cleanup_recipe(cs->name));
  } catch (const std::exception& e) {
    set(o, Status::error, fmt::format("cannot guard the container (nothing was created): {}", e.what()));
    return o;
  }
  const auto t0 = Clock::now();
  std::string gpu_refusal;
  if (create_and_start(runtime, *cs, spec, t0, o, gpu_refusal))
    wait_and_judge(runtime, *cs, spec, ctx, t0, o);
  remove_container(runtime, cs->name, *janitor, o);

  // A driver that runs the image only with a limited feature set (minor-version) or through
  // forward compatibility: the container worked, but say so.
  if (compat.status == Status::warn && o.status == Status::pass) set(o, Status::warn, compat.summary);
  skip_without_gpu(spec, ctx, gpu_refusal, o);
  return o;
}

}  // namespace gpuqual::probes
