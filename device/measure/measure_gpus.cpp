#include "device/measure/measure_gpus.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <exception>
#include <thread>

#include "device/cuda/cuda_error.hpp"

namespace gpuqual {

CudaProbe probe_cuda() {
  CudaProbe probe;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice) {
    (void)cudaGetLastError();
    probe.no_device = true;
    probe.reason = "no GPU: cudaGetDeviceCount returned " + std::to_string(status) + " (" +
                   CudaError::describe(status) + ")";
    return probe;
  }
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear it, so later calls do not report it again
    probe.reason = "CUDA runtime cannot use a GPU: cudaGetDeviceCount returned " + std::to_string(status) +
                   " (" + CudaError::describe(status) + ")";
    return probe;
  }
  probe.device_count = count;
  if (count == 0) {
    probe.no_device = true;
    probe.reason = "no GPU: the CUDA runtime reports 0 devices";
  }
  return probe;
}

CheckResult no_gpu_result(const std::string& check, const CudaProbe& probe) {
  return unmeasurable(check, probe.no_device ? Status::skip : Status::error, probe.reason);
}

std::vector<int> select_gpus(const std::vector<int>& requested, int device_count,
                             std::vector<int>* invisible) {
  std::vector<int> out;
  if (requested.empty()) {
    for (int i = 0; i < device_count; ++i) out.push_back(i);
    return out;
  }
  for (int gpu : requested) {
    if (gpu >= 0 && gpu < device_count) {
      out.push_back(gpu);
    } else if (invisible) {
      invisible->push_back(gpu);
    }
  }
  return out;
}

std::vector<std::string> run_on_each_gpu(const std::vector<int>& gpus,
                                         const std::function<void(std::size_t slot, int gpu)>& body) {
  std::vector<std::string> errors(gpus.size());
  std::vector<std::thread> threads;
  threads.reserve(gpus.size());
  for (std::size_t slot = 0; slot < gpus.size(); ++slot) {
    threads.emplace_back([&, slot] {
      try {
        CUDA_CHECK(cudaSetDevice(gpus[slot]));
        body(slot, gpus[slot]);
      } catch (const std::exception& e) {
        errors[slot] = e.what();
        if (errors[slot].empty()) errors[slot] = "unknown error";
      } catch (...) {
        errors[slot] = "unknown non-standard exception";
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

bool is_sticky_cuda_error(int cuda_status) {
  switch (static_cast<cudaError_t>(cuda_status)) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

void run_gpu_steps(
    std::size_t count, const std::function<void(std::size_t step)>& step,
    const std::function<void(std::size_t step, const std::string& what, std::size_t remaining)>& on_error) {
  for (std::size_t i = 0; i < count; ++i) {
    try {
      step(i);
    } catch (const std::exception& e) {
      const auto* cuda = dynamic_cast<const CudaError*>(&e);
      // A cuBLAS or NCCL error can hide a sticky CUDA error: the context still holds it.
      const bool sticky = (cuda != nullptr && is_sticky_cuda_error(cuda->status())) ||
                          is_sticky_cuda_error(cudaPeekAtLastError());
      std::string what = e.what();
      if (!sticky) {
        on_error(i, what, 0);
        continue;
      }
      const std::size_t remaining = count - i - 1;
      what += "; the GPU's CUDA context is lost (sticky error)";
      if (remaining > 0)
        what += ": " + std::to_string(remaining) + " later measurement(s) on this GPU not run";
      on_error(i, what, remaining);
      return;
    }
  }
}

void GpuOutcome::add(Status s, std::string note) {
  status = worse_of(status, s);
  if (!note.empty()) notes.push_back(std::move(note));
}

void merge_outcomes(CheckResult& result, const std::vector<int>& gpus, std::vector<GpuOutcome>& outcomes,
                    const std::vector<std::string>& errors) {
  for (std::size_t slot = 0; slot < gpus.size(); ++slot) {
    auto& o = outcomes[slot];
    if (!errors[slot].empty()) o.add(Status::error, errors[slot]);
    // No outcome is pass by default: every check merged here reports a metric for what it
    // measured, so a GPU still `pass` with none was never measured (docs/compare.md, "No false pass").
    if (o.status == Status::pass && o.metrics.empty())
      o.add(Status::error, "not measured: no metric reported for this GPU");
    for (auto& m : o.metrics) result.metrics.push_back(std::move(m));
    for (auto& f : o.findings) result.findings.push_back(std::move(f));
    for (auto& [k, v] : o.attributes) result.attributes[k] = v;
    std::string reason;
    for (const auto& n : o.notes) reason += (reason.empty() ? "" : "; ") + n;
    result.per_gpu.push_back({gpus[slot], o.status, reason, o.status == Status::skip ? o.reason_code : ""});
  }
  roll_up(result);
}

void roll_up(CheckResult& result) {
  if (result.per_gpu.empty()) return;
  Status status = Status::pass;
  std::string reason;
  for (const auto& g : result.per_gpu) {
    status = worse_of(status, g.status);
    if (g.status != Status::pass && !g.reason.empty()) {
      reason += (reason.empty() ? "" : "; ") + ("gpu " + std::to_string(g.gpu) + ": " + g.reason);
    }
  }
  result.status = status;
  result.reason = reason;
  result.reason_code.clear();
  if (status == Status::skip) {
    const std::string& code = result.per_gpu.front().reason_code;
    const bool same = std::all_of(result.per_gpu.begin(), result.per_gpu.end(), [&](const GpuCheckStatus& g) {
      return g.status != Status::skip || g.reason_code == code;
    });
    if (same) result.reason_code = code;
  }
}

}  // namespace gpuqual
