#pragma once
// The `stack` rules of the NVLink fabric's host services on Blackwell: NVLink Subnet Manager
// (NVLSM) beside Fabric Manager on HGX B200/B300 baseboards, and the IMEX daemon of multi-node
// NVLink systems (GB200/GB300 NVL72): its version against the driver, its channels, and a host
// daemon that would conflict with the ComputeDomains of NVIDIA's DRA driver. Sources and remedies:
// docs/stack-check.md, "NVLink fabric: NVLSM and IMEX". The codes are in core/rules/stack_rules.cpp's
// table with the others.
#include <functional>
#include <string>
#include <string_view>

#include "core/rules/stack_tree.hpp"

namespace gpuqual {

// An HGX B200 or B300 GPU is on the PCI bus: PCI device ids 0x2901 (B200), 0x2909 (HGX B200
// 168 GB) and 0x3182 (B300), as NVIDIA's DCGM diagnostic keys its per-SKU table
// (https://github.com/NVIDIA/DCGM/blob/master/nvvs/diag-skus.yaml.in). Such a baseboard has
// NVSwitches whether or not they show on the host's PCI bus.
bool hgx_blackwell(const HostStack& h);

using AddStackFinding = std::function<void(std::string_view code, std::string detail)>;

// stack.nvlsm_missing, stack.imex_version_mismatch, stack.imex_channels_missing,
// stack.imex_dra_conflict, in that order.
void nvlink_fabric_rules(const HostStack& h, const AddStackFinding& add);

}  // namespace gpuqual
