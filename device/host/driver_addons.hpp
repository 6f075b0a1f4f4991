#pragma once
// The driver stack around the kernel module, read without privileges: the module's build line
// (/proc/driver/nvidia/version), NVIDIA Fabric Manager (NVSwitch systems: the nv-fabricmanager
// binary, its systemd unit, its process) and the nvidia-peermem module (GPUDirect RDMA).
// Each reader takes the roots it reads so tests point them at fake trees.
#include <string>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

// The "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  <build date>" line.
StackFact read_kernel_module_build(const std::string& path = "/proc/driver/nvidia/version");

// "<version>, running" / "<version>, not running" ("installed" when --version names none), or
// "not found" when neither binary, unit nor process exists. `root` prefixes the binary and unit
// paths ("" = the real /), `proc_dir` is where processes are listed.
StackFact read_fabric_manager(const std::string& path_env, const std::string& root = "",
                              const std::string& proc_dir = "/proc");

// "loaded <version>" (or "loaded" when the module has no version attribute), "not loaded".
StackFact read_nvidia_peermem(const std::string& sys_module_dir = "/sys/module");

}  // namespace gpuqual
