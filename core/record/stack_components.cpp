// The one flat list of a record's stack (core/record/stack_inventory.hpp): names are stable because
// matrix rows, Prometheus label sets and diff lines are keyed by them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/record/record.hpp"

namespace gpuqual {

namespace {

// Fields that predate StackInventory hold "" for "not read"; in the list they read as null.
StackFact legacy(const std::string& v) {
  return v.empty() ? StackFact::unread("not in the record") : StackFact::read(v);
}

void add(std::vector<StackComponent>& out, std::string name, StackFact fact) {
  out.push_back(StackComponent{std::move(name), std::move(fact)});
}

// The `stack` check's summary: diff shows a regenerated spec, a changed runtime configuration.
void add_stack_check(std::vector<StackComponent>& out, const StackCheckSummary& c) {
  add(out, "stack_check.status",
      StackFact::read(c.status + (c.findings.empty() ? "" : ": ") +
                      fmt::format("{}", fmt::join(c.findings, ", "))));
  add(out, "stack_check.cdi", StackFact::read(c.cdi));
  add(out, "stack_check.runtime", StackFact::read(c.runtime));
  add(out, "stack_check.reboot_pending", StackFact::read(c.reboot_pending ? "yes" : "no"));
}

}  // namespace

std::vector<StackComponent> stack_components(const RunRecord& r) {
  std::vector<StackComponent> out;
  const NodeFacts& n = r.node;
  const StackInventory* s = n.stack ? &*n.stack : nullptr;

  add(out, "driver", legacy(n.driver_version));
  add(out, "driver.kernel_module", legacy(n.kernel_module_version));
  if (s) add(out, "driver.kernel_module_build", s->kernel_module_build);
  add(out, "driver.nvml", legacy(n.nvml_driver_version));
  add(out, "cuda.driver", legacy(n.cuda_driver_version));
  add(out, "cuda.runtime", legacy(n.cuda_runtime_version));
  add(out, "cublas", legacy(n.cublas_version));
  add(out, "nccl", legacy(n.nccl_version));
  add(out, "kernel", legacy(n.kernel));
  add(out, "os", legacy(n.os));
  if (s) {
    add(out, "fabric_manager", s->fabric_manager);
    add(out, "nvidia_peermem", s->nvidia_peermem);
    add(out, "bios.vendor", s->bios_vendor);
    add(out, "bios.version", s->bios_version);
    add(out, "bios.date", s->bios_date);
    add(out, "board.vendor", s->board_vendor);
    add(out, "board.name", s->board_name);
    if (!s->nics) {
      add(out, "nic", StackFact::unread(s->nics_reason));
    } else {
      for (const auto& nic : *s->nics) {
        add(out, fmt::format("nic.{}.driver", nic.name), nic.driver);
        add(out, fmt::format("nic.{}.firmware", nic.name), nic.firmware);
      }
    }
  }
  for (const auto& g : r.gpus) add(out, fmt::format("gpu.{}.vbios", g.index), legacy(g.vbios));
  if (s) {
    for (const auto& f : s->gpu_firmware) {
      add(out, fmt::format("gpu.{}.inforom_image", f.gpu), f.inforom_image);
      add(out, fmt::format("gpu.{}.inforom_oem", f.gpu), f.inforom_oem);
      add(out, fmt::format("gpu.{}.inforom_ecc", f.gpu), f.inforom_ecc);
      add(out, fmt::format("gpu.{}.inforom_power", f.gpu), f.inforom_power);
      add(out, fmt::format("gpu.{}.gsp_firmware", f.gpu), f.gsp_firmware);
    }
  }
  for (const auto& item : n.container_runtimes) {
    // "docker 28.2.2" → container_runtime.docker = 28.2.2
    const auto space = item.find(' ');
    add(out, "container_runtime." + item.substr(0, space),
        StackFact::read(space == std::string::npos ? "" : item.substr(space + 1)));
  }
  if (s) {
    add(out, "container_toolkit", s->container_toolkit);
    add(out, "cdi_specs", s->cdi_specs);
    if (s->stack_check) add_stack_check(out, *s->stack_check);
    add(out, "k8s.kubelet", s->k8s_kubelet_version);
    add(out, "k8s.container_runtime", s->k8s_container_runtime);
    add(out, "k8s.kernel", s->k8s_kernel_version);
    add(out, "k8s.os_image", s->k8s_os_image);
    add(out, "k8s.gpu_capacity", s->k8s_gpu_capacity);
    add(out, "k8s.gpu_allocatable", s->k8s_gpu_allocatable);
    for (const auto& [name, version] : s->platform) add(out, "platform." + name, StackFact::read(version));
  }
  // The images the container probes ran: the digest when the runtime reported one, else its id.
  const std::string image_suffix = kProbeImageAttr;
  for (const auto& c : r.checks) {
    for (const auto& [key, reference] : c.attributes) {
      if (!key.ends_with(image_suffix) || key.size() == image_suffix.size()) continue;
      const std::string probe = key.substr(0, key.size() - image_suffix.size());
      auto digest = c.attributes.find(probe + kProbeImageDigestAttr);
      auto id = c.attributes.find(probe + kProbeImageIdAttr);
      StackFact f = digest != c.attributes.end() ? StackFact::read(digest->second)
                    : id != c.attributes.end()
                        ? StackFact::read(id->second)
                        : StackFact::unread("the probe did not reach the image (" + reference + ")");
      add(out, fmt::format("image.{}.{}", c.name, probe), std::move(f));
    }
  }
  return out;
}

}  // namespace gpuqual
