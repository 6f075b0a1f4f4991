#pragma once
// Platform firmware from DMI sysfs, readable without root: BIOS vendor, version and date, board
// vendor and name (/sys/class/dmi/id/*, world-readable by the kernel's dmi-id driver; the
// serial numbers next to them are root-only and not read).
#include <string>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

// Fills bios_* and board_* of `stack` from `dmi_dir` (a fake root in tests).
void read_platform_firmware(StackInventory& stack, const std::string& dmi_dir = "/sys/class/dmi/id");

}  // namespace gpuqual
