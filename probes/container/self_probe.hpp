#pragma once
// The self-probe: instead of (or before trusting) an image's own command, run gpuqual's small
// program inside the container (probes/container/inside/container_probe_main.cpp, mounted read-only) and
// judge what it saw — GPUs visible, the CUDA driver and runtime inside, a tiny kernel's result
// on each GPU. The program needs only the image's C library (glibc 2.34 or newer).
#include <map>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/record/status.hpp"
#include "probes/container/container_runtime.hpp"

namespace gpuqual::probes {

inline constexpr const char* kSelfProbeTarget = "/.gpuqual-probe";

// $GPUQUAL_CONTAINER_PROBE, else gpuqual-container-probe next to the running binary, else
// ../libexec/gpuqual/ of it; "" when none is there.
std::string find_container_probe_program();

struct SelfProbeJudgement {
  Status status = Status::error;
  std::string reason;
  std::vector<Finding> findings;
  std::map<std::string, std::string> attributes;  // visible_gpus, gpus, cuda_driver, cudart, kernel, ...
};

// `output`: what the program printed (its JSON object is the last line starting with '{').
//   GPU requested: no libcuda, cuInit failing, fewer GPUs than asked, a kernel failing → fail.
//   Not requested: pass, with what it saw. Unreadable output → error (the program did not run).
SelfProbeJudgement judge_self_probe(const std::string& output, const GpuRequest& requested);

}  // namespace gpuqual::probes
