#include "device/node/stack_collect.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/rules/stack_rules.hpp"
#include "device/host/container_toolkit.hpp"
#include "device/host/driver_addons.hpp"
#include "device/host/k8s_node_info.hpp"
#include "device/host/nic_firmware.hpp"
#include "device/host/platform_firmware.hpp"
#include "device/host/stack_tree_reader.hpp"
#include "device/nvml/gpu_firmware.hpp"

namespace gpuqual {

StackInventory collect_stack_inventory(const NvmlSession& nvml, const std::vector<GpuInfo>& gpus,
                                       const StackSources& src) {
  std::string path_env = src.path_env;
  if (path_env.empty()) {
    const char* p = std::getenv("PATH");
    path_env = p ? p : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  }
  StackInventory s;
  read_platform_firmware(s, src.sys + "/class/dmi/id");
  s.nics = read_nics(s.nics_reason, src.sys + "/class");
  s.gpu_firmware = read_gpu_firmware(nvml, gpus);
  s.kernel_module_build = read_kernel_module_build(src.proc + "/driver/nvidia/version");
  s.fabric_manager = read_fabric_manager(path_env, src.root, src.proc);
  s.nvidia_peermem = read_nvidia_peermem(src.sys + "/module");
  s.container_toolkit = read_container_toolkit(path_env);
  s.cdi_specs = read_cdi_specs({src.root + "/etc/cdi", src.root + "/var/run/cdi"});
  // The `stack` check's rules on the same tree (its default handler): the record says whether the
  // stack is coherent and a reboot pending even when the suite did not run the check.
  const std::string root = src.root.empty() ? "/" : src.root;
  if (std::filesystem::is_directory(root)) {
    const HostStack host = read_host_stack(root);
    s.stack_check = stack_check_summary(host, judge_stack(host, StackRuleOptions{}));
  }
  read_k8s_node_info(s, src.node_file);
  s.platform = src.platform;
  return s;
}

}  // namespace gpuqual
