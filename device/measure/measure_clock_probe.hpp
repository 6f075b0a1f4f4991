#pragma once
// The measurement engine's clock probe on a real GPU: NVML's clock event (throttle) reasons and,
// where the NVML API table has nvmlDeviceGetClockInfo, the SM clock, read around each sample.
//
// What counts as throttled: thermal slowdown (SW or HW), HW slowdown, HW power brake, board
// limit and reliability policies. A software power cap is recorded among the reasons but not
// counted: a dense GEMM at the power limit is the normal steady state of an SXM GPU, and the
// baseline holds what that state delivers.
#include <string>

#include "device/measure/measure.hpp"

namespace gpuqual {

class NvmlSession;

// A probe for CUDA device `cuda_device` (matched to NVML by PCI bus id). Returns an empty probe
// and sets `why` when NVML cannot serve one (no library, no device match, no reasons symbol).
// `nvml` must outlive the probe; NVML calls are thread-safe.
ClockProbe make_nvml_clock_probe(const NvmlSession& nvml, int cuda_device, std::string* why);

}  // namespace gpuqual
