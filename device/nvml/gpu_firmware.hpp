#pragma once
// Firmware of each GPU beyond the VBIOS, through NVML (no privileges needed): the InfoROM image
// version, the InfoROM OEM / ECC / power object versions and the GSP firmware version.
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

class NvmlSession;

// One entry per GPU of `gpus` that NVML can match by UUID / bus id. Every fact NVML could not
// give is null with the reason (the NVML status, or the symbol an older driver lacks); when the
// session itself is not usable, every GPU's facts carry the session's reason.
std::vector<GpuFirmware> read_gpu_firmware(const NvmlSession& nvml, const std::vector<GpuInfo>& gpus);

}  // namespace gpuqual
