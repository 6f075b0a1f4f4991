#pragma once
// What the `stack` check read from a host's tree (`--root DIR`): the loaded driver and running
// kernel, the NVIDIA modules of each installed kernel, the CDI specs, the container engines'
// NVIDIA handler, the NVIDIA Container Runtime's mode, the packages, the /dev/char links and the
// NVIDIA devices on the PCI bus. Plain data: device/host/stack_tree_reader.hpp fills it from the
// files, core/rules/stack_rules.hpp judges it, so every rule is tested on a value as well as on a
// fixture tree.
//
// "Not there" and "could not read" differ everywhere: an absent file is an empty optional or an
// empty list; a file that exists but could not be read (permissions, too large, a symlink loop,
// not a regular file) is an entry of `unread` naming the path, and the check is an `error`.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuqual {

// A path the reader could not read, and why ("permission denied", "larger than 4 MiB").
struct StackUnread {
  std::string path;  // as on the host: "/etc/cdi/nvidia.yaml"
  std::string problem;
};

// A file a CDI spec mounts or a hook it runs, and whether it exists under the root.
struct CdiReference {
  std::string path;  // host path: "/usr/lib/x86_64-linux-gnu/libcuda.so.570.133.20"
  std::string what;  // "mount", "hook"
  bool exists = false;
};

struct CdiDevice {
  std::string name;             // "0", "GPU-8f6b...", "all"
  std::vector<int> gpu_minors;  // N of each /dev/nvidiaN device node it injects
};

// One CDI spec file (CDI specification: github.com/cncf-tags/container-device-interface SPEC.md).
struct CdiSpecFile {
  std::string path;         // host path: "/etc/cdi/nvidia.yaml"
  std::string parse_error;  // "line 12, column 3: ..." when the spec does not parse; else ""
  std::string kind;         // "nvidia.com/gpu"
  std::string cdi_version;  // "0.5.0"
  std::vector<CdiDevice> devices;
  std::vector<CdiReference> references;
};

// The NVIDIA handler of one container engine, as its configuration (with imports and drop-ins)
// declares it.
struct RuntimeEngine {
  std::string engine;              // "containerd", "cri-o"
  std::vector<std::string> files;  // the files read, in merge order (host paths)
  std::string parse_error;         // "<file>: line L: problem" when one does not parse
  // containerd: the `version` key (1 when absent, as containerd reads it) and the CRI plugin
  // table the file uses ("io.containerd.grpc.v1.cri" for layout 2, "io.containerd.cri.v1.runtime"
  // for layout 3). One entry per file that states either.
  struct Layout {
    std::string file;
    int version = 1;
    std::string cri_plugin;  // "" when the file has no CRI table
  };
  std::vector<Layout> layouts;
  // A file of it exists but could not be read (HostStack::unread names it): the handler rules are
  // not judged on the rest, the check is an error.
  bool incomplete = false;
  bool handler_found = false;
  std::string handler_binary;             // BinaryName / runtime_path; "" when not set
  std::optional<bool> binary_executable;  // nullopt when no binary is named
  std::optional<bool> cdi_enabled;        // enable_cdi as configured or by the engine's default
  std::optional<bool> systemd_cgroup;     // SystemdCgroup / cgroup_manager = "systemd"
};

// A package of the driver stack and its version as the package database has it.
struct StackPackage {
  std::string name;     // "nvidia-driver-570-server", "nvidia-fabricmanager-570"
  std::string version;  // the upstream part: "570.133.20" (of "570.133.20-0ubuntu0.24.04.1")
};

// Where the reader looks for a container engine's configuration (device/host/stack_runtime_reader.cpp),
// as the findings name it. k3s and RKE2 run their own containerd, whose config.toml they render
// at start from config.toml.tmpl (k3s docs, "Advanced Options": configuring containerd).
inline constexpr const char* kEngineConfigPlaces =
    "/etc/containerd/config.toml, /etc/crio/crio.conf, /etc/crio/crio.conf.d, "
    "/var/lib/rancher/k3s/agent/etc/containerd/config.toml(.tmpl), "
    "/var/lib/rancher/rke2/agent/etc/containerd/config.toml(.tmpl)";

struct HostStack {
  std::string root;  // the tree read: "/" or "/host"

  std::optional<std::string> loaded_driver;   // /proc/driver/nvidia/version or /sys/module/nvidia/version
  std::optional<std::string> running_kernel;  // /proc/sys/kernel/osrelease

  std::vector<std::string> installed_kernels;  // directories of /lib/modules, sorted
  // Kernel → whether it has an nvidia.ko[.xz|.zst] (updates/, extra/, kernel/drivers/video/).
  std::map<std::string, bool> kernel_has_module;
  // Kernel → the driver version its module was built from, where DKMS says it
  // (/var/lib/dkms/nvidia/<version>/<kernel>/).
  std::map<std::string, std::string> kernel_module_version;

  std::vector<CdiSpecFile> cdi_specs;

  std::vector<RuntimeEngine> engines;  // containerd and CRI-O where configured
  // <root>/var/lib/kubelet is a directory: a Kubernetes node, whose pods get the RuntimeClass's
  // handler. Elsewhere (Docker, Podman, Slurm hosts) the engines' handlers serve no pod.
  bool kubelet = false;
  std::optional<std::string> runtime_mode;  // NVIDIA Container Runtime mode: legacy, cdi, csv, auto
  std::string runtime_config_path;          // "/etc/nvidia-container-runtime/config.toml" when read
  std::string runtime_config_error;         // parse error of it, "" when none

  // Packages: driver, Fabric Manager, toolkit, DCGM. `packages_read` false: no database could
  // be read (packages_note says why); a database that cannot be read is said in packages_note.
  std::vector<StackPackage> driver_packages, fabric_manager_packages, toolkit_packages, dcgm_packages;
  // NVLink Subnet Manager (`nvlsm`: its own version scheme, kept whole) and the IMEX daemon
  // (`nvidia-imex[-<branch>]`: the driver's version) (core/rules/stack_fabric_rules.hpp).
  std::vector<StackPackage> nvlsm_packages, imex_packages;
  bool packages_read = false;
  std::string packages_note;

  std::optional<bool> dev_char_nvidia_links;  // /dev/char has links to /dev/nvidia*; nullopt: no /dev/char
  int pci_gpus = 0;                           // NVIDIA display/3D controllers on the bus
  int pci_gpus_passthrough = 0;               // of them, bound to vfio-pci (passed to a VM)
  int pci_nvswitches = 0;                     // NVIDIA bridges (class 0x0680): NVSwitch
  std::vector<unsigned> pci_gpu_device_ids;   // the GPUs' PCI device ids (sysfs `device`), bus order

  // The IMEX daemon's systemd unit nvidia-imex.service: installed (a unit file), enabled (a link in
  // a .wants folder of /etc/systemd/system) and masked (/etc/systemd/system/nvidia-imex.service
  // links to /dev/null).
  bool imex_unit = false, imex_enabled = false, imex_masked = false;
  // /dev/nvidia-caps-imex-channels: nullopt when the folder is absent, else its channel<N> names.
  std::optional<std::vector<std::string>> imex_channels;
  // The NVIDIA DRA driver's ComputeDomain kubelet plugin has its folder on this node
  // (/var/lib/kubelet/plugins/compute-domain.nvidia.com): ComputeDomains run IMEX daemons in pods.
  bool dra_compute_domains = false;
  bool pci_read = false;  // sysfs could be listed

  std::vector<StackUnread> unread;
};

}  // namespace gpuqual
