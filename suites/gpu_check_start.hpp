#pragma once
// The first three steps every GPU check takes, in one place: parse the suite parameters, ask
// the CUDA runtime for GPUs, select the GPUs the runner asked for. When a step fails, `early`
// holds what the check returns (bad parameters → error; no usable runtime → the runtime's reason,
// skip or error as no_gpu_result decides; none of the requested GPUs visible → error).
#include <optional>
#include <string>
#include <vector>

#include "core/base/input_error.hpp"
#include "device/measure/measure_gpus.hpp"
#include "device/measure/measure_report.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

// Checks take named references to the members (`auto& gpus = start.gpus;`), not a structured
// binding: clang before 16 cannot capture a binding in a lambda (P1091), and the ASan stage is
// built with clang 14 (scripts/test.sh).
template <class Params>
struct GpuCheckStart {
  Params params{};
  CudaProbe probe;
  std::vector<int> gpus;       // the CUDA devices to measure
  std::vector<int> invisible;  // requested indices CUDA cannot see
  std::optional<CheckResult> early;

  // Names on `result`, under `attribute` ("gemm.gpus_not_visible"), the requested GPUs CUDA
  // could not see; nothing when it saw them all.
  void note_invisible(CheckResult& result, const std::string& attribute) const {
    if (!invisible.empty()) result.attributes[attribute] = invisible_reason(invisible, probe.device_count);
  }
};

// `parse(const nlohmann::json&)` returns Params or throws InputError.
template <class Parse>
auto start_gpu_check(const std::string& check, const CheckContext& ctx, Parse parse)
    -> GpuCheckStart<decltype(parse(ctx.params))> {
  GpuCheckStart<decltype(parse(ctx.params))> s;
  try {
    s.params = parse(ctx.params);
  } catch (const InputError& e) {
    s.early = unmeasurable(check, Status::error, std::string("bad parameters: ") + e.what());
    return s;
  }
  s.probe = probe_cuda();
  if (!s.probe.ok()) {
    s.early = no_gpu_result(check, s.probe);
    return s;
  }
  s.gpus = select_gpus(ctx.gpus, s.probe.device_count, &s.invisible);
  if (s.gpus.empty())
    s.early = unmeasurable(check, Status::error, invisible_reason(s.invisible, s.probe.device_count));
  return s;
}

}  // namespace gpuqual
