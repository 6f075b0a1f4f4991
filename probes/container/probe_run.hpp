#pragma once
// One container probe, start to finish: inspect the image (pull only when asked), check its
// CUDA requirement against the host driver, create the container under a janitor's watch,
// start it, wait with a deadline, read its output (bounded), remove it, and judge.
//
//   pass   the container exited with the expected code and its output matched
//   fail   wrong exit code, output mismatch, timeout, could not start (missing command), the
//          runtime could not give it the GPU it asked for, or the image needs a newer driver
//   skip   a GPU was requested but the node has no GPU (nothing the container does is judged)
//   error  the runtime is missing or does not answer, the image is not there (and no pull was
//          asked), the run was stopped
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/record/status.hpp"
#include "probes/container/container_runtime.hpp"
#include "probes/container/image_compat.hpp"

namespace gpuqual::probes {

struct ProbeSpec {
  std::string name;  // used in container and metric names
  std::string image;
  std::vector<std::string> command;  // empty: the image's own command
  std::vector<std::string> env;      // "K=V"
  GpuRequest gpus;
  double timeout_s = 60;  // from start to exit
  int expect_exit = 0;
  std::string expect_output;  // ECMAScript regex searched in the output (^ and $ match at
                              // line ends); "" = none
  bool pull = false;
  double pull_timeout_s = 600;
  std::size_t max_output = 64u << 10;  // bytes of output kept (and searched)
  // Run gpuqual's own program inside instead of a command (self_probe.hpp): GPUs visible, CUDA
  // driver and runtime inside, a tiny kernel per GPU.
  bool self_probe = false;
  // Lines `gpuqual-metric {json}` read from the output (probes/container/metric_lines.hpp); 0 = none read.
  std::size_t max_metric_lines = 64;
};

// What the node is, for the compatibility preflight and the GPU-less case.
struct HostFacts {
  CompatInputs compat;           // driver, GPUs and the rules table for the CUDA preflight
  std::optional<bool> has_gpus;  // unknown when no inventory was taken
  std::string no_gpu_reason;
};

struct ProbeContext {
  std::string run_id;  // containers are named gpuqual-<run>-<probe>-<n>
  HostFacts host;
  const std::atomic<bool>* stop = nullptr;
  std::string self_probe_program;  // host path of gpuqual-container-probe ("" = not found)
};

struct ProbeOutcome {
  std::string probe;
  std::string image;
  std::string image_id;      // what the runtime says the image is (ImageInfo::id)
  std::string image_digest;  // its registry digest, "repo@sha256:...", "" when it has none
  std::string container;     // the name it had
  Status status = Status::error;
  std::string reason;
  std::optional<int> exit_code;
  // Seconds from the create call: created, started, exited.
  std::optional<double> created_s, started_s, exited_s;
  std::string output;
  bool output_truncated = false;
  bool removed = false;                     // the probe saw the container removed
  std::string compat;                       // what the CUDA preflight concluded, "" when not run
  std::map<std::string, std::string> seen;  // what the self-probe saw inside (visible_gpus, ...)
  std::vector<Finding> findings;
  // What the image reported about itself (gpuqual-metric lines): container.<probe>.<name>.
  std::vector<Metric> metrics;
  std::size_t metric_lines = 0;
};

ProbeOutcome run_probe(ContainerRuntime& runtime, const ProbeSpec& spec, const ProbeContext& context);

// Exposed for tests: judges a finished container (exit code and output) against the spec.
void judge_exit_and_output(const ProbeSpec& spec, ProbeOutcome& outcome);
// ... and a finished self-probe: its JSON (self_probe.hpp), then exit code and output.
void judge_self_probe_outcome(const ProbeSpec& spec, ProbeOutcome& outcome);
// ... and reads the image's gpuqual-metric lines from its output into `outcome.metrics`; a
// malformed line or too many make a passing probe `warn` (the findings say which line).
void read_image_metrics(const ProbeSpec& spec, ProbeOutcome& outcome);

}  // namespace gpuqual::probes
