#pragma once
// Reads one small text file (a sysfs attribute, a /proc line) as a stack fact: the first line
// without trailing blanks, or null with "<path>: <why>" when it cannot be read. The one place
// the stack readers (platform_firmware, nic_firmware, driver_addons) turn a file into a fact.
#include <string>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

StackFact read_fact_file(const std::string& path);

// The last path component of the symlink `link` points to ("../../bus/pci/drivers/mlx5_core" →
// "mlx5_core"); null with the reason when it is not a readable link.
StackFact read_link_name(const std::string& link);

}  // namespace gpuqual
