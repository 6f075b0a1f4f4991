#pragma once
// What every benchmark check does first and last: ask the CUDA runtime whether it can see a GPU
// (on a machine without a driver: cudaErrorInsufficientDriver, quickly and without a crash),
// decide which GPUs to measure, measure them all at once on one host thread each, and roll the
// per-GPU statuses up into the check's status.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct CudaProbe {
  int device_count = 0;
  bool no_device = false;  // the runtime works but sees no GPU (skip, not error)
  std::string reason;      // why no GPU can be measured ("" when device_count > 0)
  bool ok() const { return device_count > 0; }
};

// cudaGetDeviceCount, with the runtime's own error name, number and text as the reason.
CudaProbe probe_cuda();
// The result of a check that cannot measure: skip when the runtime sees no GPU, error when the
// runtime itself fails (no driver, driver too old).
CheckResult no_gpu_result(const std::string& check, const CudaProbe& probe);

// The CUDA devices to measure: `requested` (the runner's selection) when given, every visible
// device when it is empty. Indices CUDA cannot see are returned in `invisible`.
std::vector<int> select_gpus(const std::vector<int>& requested, int device_count,
                             std::vector<int>* invisible);

// Runs body(slot, gpu) on one host thread per GPU with that GPU current (docs/architecture.md: GPUs of a
// node are measured in parallel). Returns per slot "" or what the body threw.
std::vector<std::string> run_on_each_gpu(const std::vector<int>& gpus,
                                         const std::function<void(std::size_t slot, int gpu)>& body);

// What one GPU's thread produced: its metrics, findings and attributes, and its status with
// the reasons behind it. Threads fill their own slot; merge_outcomes() combines them afterwards.
struct GpuOutcome {
  Status status = Status::pass;
  std::vector<std::string> notes;  // reasons for a non-pass status, and skipped parts
  std::vector<Metric> metrics;
  std::vector<Finding> findings;
  std::map<std::string, std::string> attributes;
  std::string reason_code;               // with a skip: its not-applicable code (core/record/skip_reason.hpp)
  void add(Status s, std::string note);  // status = worse_of(status, s); note kept when non-empty
};

// Appends each GPU's metrics, findings, attributes and per-GPU status to `result` (a thread
// error becomes that GPU's `error`, keeping what it measured before), then rolls up.
void merge_outcomes(CheckResult& result, const std::vector<int>& gpus, std::vector<GpuOutcome>& outcomes,
                    const std::vector<std::string>& errors);

// Check status and reason from the per-GPU statuses: the worst of them (severity_rank), with the
// reasons of the entries that did not pass, "gpu N: reason" joined by "; ". A check that skipped
// carries a not-applicable code only when every skipped GPU gave the same one.
void roll_up(CheckResult& result);

// Sticky CUDA errors (illegal address, launch failure, hardware stack error, illegal or
// misaligned instruction/address, device assert, uncorrectable ECC, launch timeout) leave the
// device's context unusable: every later call on it fails with the same error.
bool is_sticky_cuda_error(int cuda_status);

// Runs steps 0..count-1 of one GPU's loop (a GEMM precision each, say). A step that throws is
// reported to on_error(step, what, remaining) and the loop goes on, unless the error is sticky
// (a CudaError with a sticky status, or one cudaPeekAtLastError still reports): then the loop
// stops, and `remaining` says how many steps were not run, so the GPU's failure is reported once
// instead of once per later step.
void run_gpu_steps(
    std::size_t count, const std::function<void(std::size_t step)>& step,
    const std::function<void(std::size_t step, const std::string& what, std::size_t remaining)>& on_error);

// unmeasurable(name, status, reason), for a check that cannot measure, is in core/record/record.hpp.

}  // namespace gpuqual
