#include "core/rules/stack_rules.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>

#include "core/base/dotted_version.hpp"
#include "core/rules/stack_fabric_rules.hpp"

namespace gpuqual {
namespace {

// Severity and action of each rule. The sources are in docs/stack-check.md and the findings table.
constexpr StackFindingCode kCodes[] = {
    {"stack.cdi_spec_unparseable", Severity::fail,
     "fix or regenerate the spec: `nvidia-ctk cdi generate --output=<file>`"},
    {"stack.cdi_spec_stale", Severity::fail, "regenerate it: `nvidia-ctk cdi generate --output=<file>`"},
    {"stack.cdi_path_missing", Severity::fail,
     "regenerate it: `nvidia-ctk cdi generate --output=<file>` (the spec names files that are gone)"},
    {"stack.cdi_gpus_not_covered", Severity::fail,
     "regenerate it: `nvidia-ctk cdi generate --output=<file>` so that every GPU has a device"},
    {"stack.cdi_no_spec", Severity::fail,
     "the runtime's mode is cdi: generate the spec: `nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`"},
    {"stack.runtime_config_unparseable", Severity::fail,
     "fix the file named (the toolkit can neither read nor patch it), then `nvidia-ctk runtime configure`"},
    {"stack.runtime_config_version_mismatch", Severity::fail,
     "make the file's `version` its layout's (2: io.containerd.grpc.v1.cri, 3: "
     "io.containerd.cri.v1.runtime), "
     "or `containerd config migrate`"},
    {"stack.runtime_handler_missing", Severity::fail,
     "add the handler: `nvidia-ctk runtime configure --runtime=containerd|crio`, then restart the engine"},
    {"stack.runtime_binary_missing", Severity::fail,
     "install the NVIDIA Container Toolkit (nvidia-container-runtime) or point the handler at its binary"},
    {"stack.runtime_cdi_disabled", Severity::fail,
     "enable CDI in the engine (containerd: enable_cdi = true; "
     "`nvidia-ctk runtime configure --runtime=containerd --cdi.enabled`)"},
    {"stack.runtime_not_configured", Severity::info, "none; no containerd or CRI-O configuration to judge"},
    {"stack.runtime_handler_not_judged", Severity::info,
     "none; on a Kubernetes node (with /var/lib/kubelet) the engine must have the RuntimeClass's handler"},
    {"stack.daemon_reload_risk", Severity::warn,
     "create the /dev/char links: `nvidia-ctk system create-dev-char-symlinks --create-all` (and its udev "
     "rule), or switch the runtime to CDI mode"},
    {"stack.fabric_manager_version_mismatch", Severity::fail,
     "install the nvidia-fabricmanager of the driver's exact version and restart nvidia-fabricmanager"},
    {"stack.fabric_manager_missing", Severity::fail,
     "install nvidia-fabricmanager-<branch> of the driver's version and enable the service"},
    {"stack.nvlsm_missing", Severity::fail,
     "install nvlsm from NVIDIA's CUDA repository beside nvidia-fabricmanager and restart "
     "nvidia-fabricmanager"},
    {"stack.imex_version_mismatch", Severity::fail,
     "install the nvidia-imex of the loaded driver's exact version and restart nvidia-imex"},
    {"stack.imex_channels_missing", Severity::warn,
     "create the IMEX channel: load nvidia with NVreg_CreateImexChannel0=1, or mknod "
     "/dev/nvidia-caps-imex-channels/channel0 with the major of nvidia-caps-imex-channels in /proc/devices"},
    {"stack.imex_dra_conflict", Severity::fail,
     "let the DRA driver run IMEX: `systemctl disable --now nvidia-imex.service && systemctl mask "
     "nvidia-imex.service` (or run the DRA driver in its host-managed IMEX mode)"},
    {"stack.kernel_module_missing", Severity::fail,
     "build or install the NVIDIA module for that kernel (`dkms autoinstall -k <kernel>` or the "
     "linux-modules-nvidia package) before booting it"},
    {"stack.kernel_module_version_mismatch", Severity::fail,
     "rebuild that kernel's NVIDIA module from the installed driver (`dkms autoinstall -k <kernel>`) before "
     "booting it; for the running kernel, or reboot so the loaded driver is the installed one"},
    {"stack.reboot_pending", Severity::warn,
     "upgraded, not rebooted: drain and reboot the node so that the packaged driver is the loaded one"},
    {"stack.driver_not_loaded", Severity::fail,
     "load the NVIDIA driver (modprobe nvidia), or build or install its module for the running kernel "
     "(`dkms autoinstall`) and reboot; the rules against the loaded driver were not judged"},
    {"stack.packages_unread", Severity::info, "none; the package rules were judged on what could be read"},
};

const StackFindingCode& code_info(std::string_view code) {
  for (const auto& c : kCodes) {
    if (code == c.code) return c;
  }
  throw std::out_of_range(fmt::format("stack rule code {} is not in the table", code));
}

class Findings {
 public:
  void add(std::string_view code, std::string detail) {
    const StackFindingCode& c = code_info(code);
    out_.push_back(
        Finding{.code = c.code, .severity = c.severity, .detail = std::move(detail), .action = c.action});
  }
  std::vector<Finding> take() { return std::move(out_); }

 private:
  std::vector<Finding> out_;
};

// The driver version a path carries: libcuda.so.570.133.20 → 570.133.20; a firmware folder
// /lib/firmware/nvidia/570.133.20/gsp_ga10x.bin → 570.133.20. "" when it carries none.
std::string version_in_path(const std::string& path) {
  static const std::regex so(R"(\.so\.(\d{3}\.\d+(?:\.\d+)?)$)");
  static const std::regex dir(R"(/nvidia/(\d{3}\.\d+(?:\.\d+)?)/)");
  std::smatch m;
  if (std::regex_search(path, m, so) || std::regex_search(path, m, dir)) return m[1].str();
  return "";
}

bool same_driver(const std::string& a, const std::string& b) {
  auto va = parse_driver_version(a), vb = parse_driver_version(b);
  return va && vb ? *va == *vb : a == b;
}

// The versions a spec's references carry, distinct and sorted.
std::set<std::string> spec_versions(const CdiSpecFile& spec) {
  std::set<std::string> out;
  for (const auto& r : spec.references) {
    if (auto v = version_in_path(r.path); !v.empty()) out.insert(v);
  }
  return out;
}

std::string listed(const std::vector<std::string>& items, std::size_t most = 3) {
  if (items.size() <= most) return fmt::format("{}", fmt::join(items, ", "));
  return fmt::format("{} and {} more",
                     fmt::join(items.begin(), items.begin() + static_cast<long>(most), ", "),
                     items.size() - most);
}

bool is_gpu_spec(const CdiSpecFile& s) { return s.parse_error.empty() && s.kind == "nvidia.com/gpu"; }

void cdi_coverage(const HostStack& h, const CdiSpecFile& spec, Findings& f) {
  if (!h.pci_read || h.pci_gpus == 0) return;
  std::set<int> minors;
  for (const auto& d : spec.devices) minors.insert(d.gpu_minors.begin(), d.gpu_minors.end());
  if (static_cast<int>(minors.size()) < h.pci_gpus) {
    f.add("stack.cdi_gpus_not_covered",
          fmt::format(
              "{}: its devices inject {} GPU device node(s) (/dev/nvidiaN) but {} GPU(s) are on the PCI "
              "bus",
              spec.path, minors.size(), h.pci_gpus));
  }
}

void cdi_spec_rules(const HostStack& h, const CdiSpecFile& spec, Findings& f) {
  std::vector<std::string> missing;
  for (const auto& r : spec.references) {
    if (!r.exists) missing.push_back(fmt::format("{} {}", r.what, r.path));
  }
  if (!missing.empty()) {
    f.add("stack.cdi_path_missing",
          fmt::format("{}: {} named by the spec do(es) not exist under the root: {}", spec.path,
                      missing.size(), listed(missing)));
  }
  if (h.loaded_driver) {
    std::vector<std::string> other;
    for (const auto& v : spec_versions(spec)) {
      if (!same_driver(v, *h.loaded_driver)) other.push_back(v);
    }
    if (!other.empty()) {
      f.add("stack.cdi_spec_stale", fmt::format("{}: made for driver {}, the loaded driver is {}", spec.path,
                                                fmt::join(other, ", "), *h.loaded_driver));
    }
  }
  cdi_coverage(h, spec, f);
}

void cdi_rules(const HostStack& h, Findings& f) {
  bool any_gpu_spec = false;
  for (const auto& spec : h.cdi_specs) {
    if (!spec.parse_error.empty()) {
      f.add("stack.cdi_spec_unparseable", fmt::format("{}: {}", spec.path, spec.parse_error));
      continue;
    }
    if (!is_gpu_spec(spec)) continue;
    any_gpu_spec = true;
    cdi_spec_rules(h, spec, f);
  }
  if (!any_gpu_spec && h.runtime_mode == "cdi") {
    f.add("stack.cdi_no_spec",
          fmt::format("the NVIDIA Container Runtime's mode is cdi ({}) but no nvidia.com/gpu "
                      "spec is in /etc/cdi or /var/run/cdi",
                      h.runtime_config_path));
  }
}

void layout_rules(const RuntimeEngine& e, Findings& f) {
  for (const auto& l : e.layouts) {
    const bool v3_table = l.cri_plugin == "io.containerd.cri.v1.runtime";
    const bool v2_table = l.cri_plugin == "io.containerd.grpc.v1.cri";
    if ((l.version >= 3 && v2_table) || (l.version <= 2 && v3_table)) {
      f.add("stack.runtime_config_version_mismatch",
            fmt::format("{}: version = {} but its CRI table is plugins.\"{}\" (layout {})", l.file, l.version,
                        l.cri_plugin, v3_table ? 3 : 2));
    }
  }
}

void handler_rules(const RuntimeEngine& e, const StackRuleOptions& o, const HostStack& h, Findings& f) {
  const std::string files = listed(e.files);
  if (!e.handler_found) {
    f.add("stack.runtime_handler_missing",
          fmt::format("{} has no runtime handler \"{}\" (the RuntimeClass's handler) in {}", e.engine,
                      o.handler, files));
    return;
  }
  if (e.handler_binary.empty()) {
    f.add(
        "stack.runtime_binary_missing",
        fmt::format("{} handler \"{}\" names no binary (BinaryName / runtime_path) in {}: it runs plain runc",
                    e.engine, o.handler, files));
  } else if (!e.binary_executable.value_or(false)) {
    f.add("stack.runtime_binary_missing",
          fmt::format("{} handler \"{}\" runs {}, which is not an executable file under {}", e.engine,
                      o.handler, e.handler_binary, h.root));
  }
  if (h.runtime_mode == "cdi" && e.cdi_enabled == false) {
    f.add("stack.runtime_cdi_disabled",
          fmt::format("the NVIDIA Container Runtime's mode is cdi but {} has CDI disabled ({})", e.engine,
                      files));
  }
}

void runtime_rules(const HostStack& h, const StackRuleOptions& o, Findings& f) {
  if (!h.runtime_config_error.empty()) {
    f.add("stack.runtime_config_unparseable",
          fmt::format("{}: {}", h.runtime_config_path, h.runtime_config_error));
  }
  if (h.engines.empty()) {
    f.add("stack.runtime_not_configured",
          fmt::format("no container engine configuration under {} (looked in {})", h.root,
                      kEngineConfigPlaces));
    return;
  }
  // Docker's containerd config.toml (CRI on by default) sits on many a GPU host that Kubernetes
  // never schedules to: no pod asks for the RuntimeClass there, so a missing handler is no fault.
  if (!h.kubelet) {
    f.add(
        "stack.runtime_handler_not_judged",
        fmt::format("no kubelet ({}/var/lib/kubelet): not a Kubernetes node, no RuntimeClass handler \"{}\" "
                    "to judge",
                    h.root == "/" ? "" : h.root, o.handler));
  }
  for (const auto& e : h.engines) {
    if (!e.parse_error.empty()) {
      f.add("stack.runtime_config_unparseable", e.parse_error);
      continue;
    }
    layout_rules(e, f);
    if (e.incomplete || !h.kubelet) continue;
    handler_rules(e, o, h, f);
  }
}

// NVIDIA's notice (nvidia-container-toolkit #48): with the systemd cgroup driver, a
// `systemctl daemon-reload` rewrites the device cgroup of containers set up by the legacy hook,
// which did not name the device nodes to systemd; containers then lose their GPUs ("Failed to
// initialize NVML: Unknown Error"). The /dev/char links or CDI mode avoid it.
void daemon_reload_rules(const HostStack& h, Findings& f) {
  const bool legacy = !h.runtime_mode || *h.runtime_mode == "legacy" || *h.runtime_mode == "auto";
  if (!legacy || h.dev_char_nvidia_links.value_or(false)) return;
  for (const auto& e : h.engines) {
    if (!e.parse_error.empty() || e.incomplete || !e.handler_found || !e.systemd_cgroup.value_or(false))
      continue;
    f.add("stack.daemon_reload_risk",
          fmt::format(
              "{} uses the systemd cgroup driver, the NVIDIA Container Runtime's mode is {} (not cdi) and "
              "/dev/char has no links to the NVIDIA device nodes: a `systemctl daemon-reload` takes the GPUs "
              "from running containers",
              e.engine, h.runtime_mode.value_or("legacy (no config.toml)")));
    return;
  }
}

void fabric_manager_rules(const HostStack& h, Findings& f) {
  // An HGX B200/B300 baseboard is an NVSwitch system even where its NVSwitches do not show on
  // the host's PCI bus (core/rules/stack_fabric_rules.hpp).
  if (!h.pci_read || (h.pci_nvswitches == 0 && !hgx_blackwell(h)) || !h.packages_read) return;
  if (h.fabric_manager_packages.empty()) {
    f.add("stack.fabric_manager_missing",
          h.pci_nvswitches > 0
              ? fmt::format(
                    "{} NVSwitch device(s) on the PCI bus but no nvidia-fabricmanager package is installed",
                    h.pci_nvswitches)
              : std::string(
                    "HGX B200/B300 GPUs on the PCI bus but no nvidia-fabricmanager package is installed"));
    return;
  }
  if (!h.loaded_driver) return;
  for (const auto& p : h.fabric_manager_packages) {
    if (!same_driver(p.version, *h.loaded_driver)) {
      f.add("stack.fabric_manager_version_mismatch",
            fmt::format("{} {} on an NVSwitch system whose driver is {}: Fabric Manager refuses a driver of "
                        "another version and the GPUs get no NVLink fabric",
                        p.name, p.version, *h.loaded_driver));
    }
  }
}

// Kernel releases in version order: "6.8.0-49-generic" < "6.8.0-51-generic" < "6.11.0-1-generic".
std::vector<long> kernel_key(const std::string& release) {
  std::vector<long> key;
  static const std::regex num(R"(\d+)");
  for (auto it = std::sregex_iterator(release.begin(), release.end(), num); it != std::sregex_iterator();
       ++it) {
    key.push_back(std::stol(it->str().substr(0, 9)));
  }
  return key;
}

// The driver the host has installed: its driver packages' versions (distinct), else, with no
// package of it read (a .run install), the loaded driver. Empty when neither is known.
std::vector<std::string> installed_driver(const HostStack& h) {
  std::vector<std::string> out;
  for (const auto& p : h.driver_packages) {
    if (std::none_of(out.begin(), out.end(), [&](const std::string& v) { return same_driver(v, p.version); }))
      out.push_back(p.version);
  }
  if (out.empty() && h.loaded_driver) out.push_back(*h.loaded_driver);
  return out;
}

// The module DKMS built for each installed kernel must be the installed driver's: a kernel
// booted with a module of another driver runs it under the installed driver's libraries
// (NVML: "Driver/library version mismatch"). The running kernel's module is held to the loaded
// driver first, as before: a module on disk of another driver than the one running is what the
// next boot of this very kernel loads.
void module_version_rules(const HostStack& h, Findings& f) {
  const std::vector<std::string> installed = installed_driver(h);
  for (const auto& [k, built] : h.kernel_module_version) {
    const bool running = h.running_kernel && k == *h.running_kernel;
    if (running && h.loaded_driver && !same_driver(built, *h.loaded_driver)) {
      f.add("stack.kernel_module_version_mismatch",
            fmt::format(
                "the running kernel {}'s NVIDIA module is built from driver {}, the loaded driver is {}", k,
                built, *h.loaded_driver));
      continue;
    }
    std::vector<std::string> other;
    for (const auto& v : installed) {
      if (!same_driver(built, v)) other.push_back(v);
    }
    if (other.empty()) continue;
    f.add("stack.kernel_module_version_mismatch",
          fmt::format("{} {}'s NVIDIA module is built from driver {}, the installed driver is {}: booting it "
                      "runs a module and libraries of two drivers",
                      running ? "the running kernel" : "kernel", k, built, fmt::join(other, ", ")));
  }
}

void kernel_rules(const HostStack& h, Findings& f) {
  if (h.running_kernel) {
    const auto running = kernel_key(*h.running_kernel);
    for (const auto& k : h.installed_kernels) {
      auto has = h.kernel_has_module.find(k);
      if (kernel_key(k) <= running || (has != h.kernel_has_module.end() && has->second)) continue;
      f.add("stack.kernel_module_missing",
            fmt::format(
                "kernel {} is installed, newer than the running {}, and has no NVIDIA module: the next boot "
                "has no GPU driver",
                k, *h.running_kernel));
    }
  }
  module_version_rules(h, f);
}

// GPUs the host is to drive: those on the bus less the ones bound to vfio-pci (a VM host passes
// them through, and no host driver is wanted for them).
int host_gpus(const HostStack& h) { return h.pci_gpus - h.pci_gpus_passthrough; }

// Whether the running kernel is known to have no NVIDIA module: "rebooted into a kernel without it".
bool running_kernel_lacks_module(const HostStack& h) {
  if (!h.running_kernel) return false;
  auto has = h.kernel_has_module.find(*h.running_kernel);
  return has != h.kernel_has_module.end() && !has->second;
}

void driver_rules(const HostStack& h, Findings& f) {
  if (!h.loaded_driver) {
    // GPUs nobody drives: no container gets one (after a reboot into a kernel whose module was
    // never built, or a module that failed to load).
    if (host_gpus(h) > 0) {
      f.add("stack.driver_not_loaded",
            fmt::format("{} GPU(s) on the PCI bus but no NVIDIA kernel module is loaded (/proc/driver/nvidia/"
                        "version, /sys/module/nvidia/version){}",
                        host_gpus(h),
                        running_kernel_lacks_module(h)
                            ? fmt::format(": the running kernel {} has no NVIDIA module", *h.running_kernel)
                            : std::string()));
    }
    return;
  }
  std::vector<std::string> other;
  for (const auto& p : h.driver_packages) {
    if (!same_driver(p.version, *h.loaded_driver)) other.push_back(p.name + " " + p.version);
  }
  if (!other.empty()) {
    f.add("stack.reboot_pending",
          fmt::format("upgraded, not rebooted: the packaged driver is {}, the loaded module "
                      "is {}",
                      listed(other), *h.loaded_driver));
  }
}

// A Kubernetes node's pods get their GPUs through the engine's NVIDIA handler: with GPUs on the
// bus and no engine configuration read, that cannot be judged, which is not a pass.
bool engine_unjudged(const HostStack& h) { return h.kubelet && h.engines.empty() && host_gpus(h) > 0; }

Status worst(Status a, Status b) {
  auto rank = [](Status s) {
    return s == Status::fail ? 3 : s == Status::error ? 2 : s == Status::warn ? 1 : 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace

std::span<const StackFindingCode> stack_finding_codes() { return kCodes; }

std::vector<Finding> stack_findings(const HostStack& h, const StackRuleOptions& options) {
  Findings f;
  cdi_rules(h, f);
  runtime_rules(h, options, f);
  daemon_reload_rules(h, f);
  fabric_manager_rules(h, f);
  nvlink_fabric_rules(h, [&f](std::string_view code, std::string detail) { f.add(code, std::move(detail)); });
  kernel_rules(h, f);
  driver_rules(h, f);
  if (!h.packages_note.empty()) f.add("stack.packages_unread", h.packages_note);
  return f.take();
}

StackJudgement judge_stack(const HostStack& h, const StackRuleOptions& options) {
  StackJudgement j;
  if (h.pci_read && h.pci_gpus == 0) {
    j.status = Status::skip;
    j.reason_code = "no_gpu";
    j.reason =
        fmt::format("no NVIDIA GPU on the PCI bus ({}/sys/bus/pci/devices): no GPU container stack to judge",
                    h.root == "/" ? "" : h.root);
    return j;
  }
  j.findings = stack_findings(h, options);
  std::vector<std::string> failed, warned, unread;
  for (const auto& x : j.findings) {
    if (x.severity == Severity::fail) failed.push_back(x.code);
    if (x.severity == Severity::warn) warned.push_back(x.code);
  }
  for (const auto& u : h.unread) unread.push_back(fmt::format("{} ({})", u.path, u.problem));
  if (!failed.empty()) {
    j.status = Status::fail;
    j.reason = fmt::format("broken: {}", listed(failed, 6));
  } else if (!unread.empty()) {
    j.status = Status::error;
  } else if (!warned.empty()) {
    j.status = Status::warn;
    j.reason = fmt::format("warnings: {}", listed(warned, 6));
  }
  if (!unread.empty()) {
    j.status = worst(j.status, Status::error);
    const std::string could_not = fmt::format("could not read {}", listed(unread, 4));
    j.reason = j.reason.empty() ? could_not : j.reason + "; " + could_not;
  }
  if (engine_unjudged(h)) {
    j.status = worst(j.status, Status::error);
    const std::string none = fmt::format(
        "a Kubernetes node with {} GPU(s) and no container engine configuration to read (looked in {}): its "
        "runtime handler cannot be judged",
        host_gpus(h), kEngineConfigPlaces);
    j.reason = j.reason.empty() ? none : j.reason + "; " + none;
  }
  return j;
}

StackCheckSummary stack_check_summary(const HostStack& h, const StackJudgement& j) {
  StackCheckSummary s;
  s.status = std::string(to_string(j.status));
  for (const auto& x : j.findings) {
    if (x.severity != Severity::info) s.findings.push_back(x.code);
    if (x.code == "stack.reboot_pending") s.reboot_pending = true;
  }
  std::vector<std::string> specs;
  for (const auto& spec : h.cdi_specs) {
    if (!spec.parse_error.empty()) {
      specs.push_back(spec.path + " unparseable");
      continue;
    }
    const auto versions = spec_versions(spec);
    specs.push_back(fmt::format("{} {} driver {} {} devices", spec.path, spec.kind,
                                versions.empty() ? "-" : fmt::format("{}", fmt::join(versions, ",")),
                                spec.devices.size()));
  }
  s.cdi = specs.empty() ? "none" : fmt::format("{}", fmt::join(specs, "; "));
  std::vector<std::string> runtimes;
  for (const auto& e : h.engines) {
    runtimes.push_back(fmt::format(
        "{} {}{}{}", e.engine,
        e.handler_found ? "handler=" + (e.handler_binary.empty() ? "-" : e.handler_binary)
                        : std::string("no handler"),
        e.cdi_enabled.value_or(false) ? " cdi" : "", e.systemd_cgroup.value_or(false) ? " systemd" : ""));
  }
  runtimes.push_back("mode " + h.runtime_mode.value_or("-"));
  s.runtime = fmt::format("{}", fmt::join(runtimes, "; "));
  return s;
}

}  // namespace gpuqual
