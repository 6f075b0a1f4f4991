#pragma once
// NICs and HCAs with their kernel driver and firmware, from sysfs without privileges:
// /sys/class/infiniband/<hca>/fw_ver (RDMA core, world-readable) and, for every network
// interface with a device behind it, /sys/class/net/<if>/device/driver/module. sysfs has no
// firmware attribute for plain net devices (ethtool's ioctl does); an interface whose device also
// has an RDMA function (mlx5 in Ethernet mode) takes that function's fw_ver.
#include <optional>
#include <string>
#include <vector>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

// `class_dir` is /sys/class (a fake root in tests). Virtual interfaces (lo, veth, bridges: no
// `device` link) are not listed. nullopt with `reason` set when <class_dir>/net cannot be listed.
std::optional<std::vector<NicStack>> read_nics(std::string& reason,
                                               const std::string& class_dir = "/sys/class");

}  // namespace gpuqual
