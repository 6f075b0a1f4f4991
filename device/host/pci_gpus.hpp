#pragma once
// NVIDIA GPUs as the PCI bus sees them, read from sysfs without the driver and without root:
// every /sys/bus/pci/devices/<bus id>/ whose `vendor` is 0x10de and whose `class` is a VGA
// (0x0300xx) or 3D (0x0302xx) controller. An NVSwitch (bridge class 0x0680xx) or the GPU's
// audio function (0x0403xx) is not a GPU, nor is an SR-IOV virtual function (a `physfn` link:
// the vGPU host's slices of one GPU). The bound driver is the `driver` link's name. This is the count a
// fallen-off-the-driver GPU cannot hide from: NVML and CUDA only list what the driver bound
// (core/verdict/gpu_presence.hpp judges it).
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

inline constexpr const char* kSysPciDevices = "/sys/bus/pci/devices";
inline constexpr unsigned kPciVendorNvidia = 0x10de;

// True for a PCI class code (the 24-bit `class` value) of a display controller gpuqual counts.
bool is_gpu_pci_class(unsigned pci_class);

// The NVIDIA GPUs under `devices_dir` (one folder per function, named by bus id), sorted by bus
// id; nullopt when the folder cannot be listed (no sysfs in this container: "not read", which
// is not "no GPU"). A device whose vendor or class file cannot be read is skipped.
std::optional<std::vector<PciGpu>> read_pci_gpus(const std::string& devices_dir = kSysPciDevices);

}  // namespace gpuqual
