#include "core/judge/diff_stack.hpp"

#include <fmt/format.h>

#include <map>

namespace gpuqual {

namespace {

std::string shown(const std::string& v) { return v.empty() ? "(none)" : v; }

template <class T>
std::string shown(const std::optional<T>& v) {
  if (!v) return "(none)";
  if constexpr (std::is_same_v<T, bool>) {
    return *v ? "on" : "off";
  } else {
    return fmt::format("{}", *v);
  }
}

void changed(std::vector<std::string>& out, const std::string& what, const std::string& a,
             const std::string& b) {
  if (a != b) out.push_back(fmt::format("{}: {} → {}", what, shown(a), shown(b)));
}

// "docker 28.2.2" → {"docker", "28.2.2"}; a runtime listed without a version keeps "".
std::map<std::string, std::string> runtimes(const std::vector<std::string>& list) {
  std::map<std::string, std::string> out;
  for (const auto& item : list) {
    const auto space = item.find(' ');
    out[item.substr(0, space)] = space == std::string::npos ? "" : item.substr(space + 1);
  }
  return out;
}

// A fact as a diff line shows it: the value, or why it was not read.
std::string shown(const StackFact& f) {
  if (f.value) return shown(*f.value);
  return "(unread: " + f.reason + ")";
}

void changed(std::vector<std::string>& out, const std::string& what, const StackFact& a, const StackFact& b) {
  if (a.value != b.value) out.push_back(fmt::format("{}: {} → {}", what, shown(a), shown(b)));
}

// Components that the lines above already cover (or that driver_consistency judges).
bool listed_above(const std::string& name) {
  for (const char* legacy : {"driver", "driver.kernel_module", "driver.nvml", "cuda.driver", "cuda.runtime",
                             "cublas", "nccl", "kernel", "os"}) {
    if (name == legacy) return true;
  }
  return name.rfind("container_runtime.", 0) == 0 || name.rfind("gpu.", 0) == 0;
}

// StackInventory components and probe images, by name. A name on one side only is a change
// when both records carry a stack (a NIC or platform component added); an older record without
// a stack, or a probe that ran only once, is not an upgrade of anything.
void inventory_changes(std::vector<std::string>& out, const RunRecord& before, const RunRecord& after) {
  std::map<std::string, StackFact> a, b;
  for (auto& c : stack_components(before)) {
    if (!listed_above(c.name)) a.emplace(c.name, std::move(c.fact));
  }
  for (auto& c : stack_components(after)) {
    if (!listed_above(c.name)) b.emplace(c.name, std::move(c.fact));
  }
  const bool both_stacks = before.node.stack && after.node.stack;
  const StackFact none = StackFact::read("");  // shown as "(none)": added or removed
  std::vector<std::string> names;
  for (const auto& [name, f] : a) names.push_back(name);
  for (const auto& [name, f] : b) {
    if (!a.count(name)) names.push_back(name);
  }
  for (const auto& name : names) {
    auto ia = a.find(name);
    auto ib = b.find(name);
    if ((ia == a.end() || ib == b.end()) && (!both_stacks || name.rfind("image.", 0) == 0)) continue;
    changed(out, name, ia == a.end() ? none : ia->second, ib == b.end() ? none : ib->second);
  }
}

const GpuFirmware* firmware_of(const RunRecord& r, const GpuInfo& g) {
  if (!r.node.stack) return nullptr;
  for (const auto& f : r.node.stack->gpu_firmware) {
    if (f.gpu == g.index) return &f;
  }
  return nullptr;
}

const GpuInfo* by_index(const std::vector<GpuInfo>& gpus, int index) {
  for (const auto& g : gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> stack_changes(const RunRecord& before, const RunRecord& after,
                                       const GpuMatching& gpus) {
  std::vector<std::string> out;
  const NodeFacts& a = before.node;
  const NodeFacts& b = after.node;
  changed(out, "driver", a.driver_version, b.driver_version);
  changed(out, "CUDA driver", a.cuda_driver_version, b.cuda_driver_version);
  changed(out, "CUDA runtime", a.cuda_runtime_version, b.cuda_runtime_version);
  changed(out, "cuBLAS", a.cublas_version, b.cublas_version);
  changed(out, "NCCL", a.nccl_version, b.nccl_version);
  changed(out, "kernel", a.kernel, b.kernel);
  changed(out, "OS", a.os, b.os);
  const auto ra = runtimes(a.container_runtimes);
  const auto rb = runtimes(b.container_runtimes);
  for (const auto& [name, version] : ra) {
    auto it = rb.find(name);
    if (it == rb.end()) {
      out.push_back(fmt::format("container runtime {}: {} → (none)", name, shown(version)));
    } else {
      changed(out, "container runtime " + name, version, it->second);
    }
  }
  for (const auto& [name, version] : rb) {
    if (!ra.count(name))
      out.push_back(fmt::format("container runtime {}: (none) → {}", name, shown(version)));
  }
  for (const auto& p : gpus.pairs) {
    if (!p.after) continue;
    const GpuInfo* g0 = by_index(before.gpus, p.before);
    const GpuInfo* g1 = by_index(after.gpus, *p.after);
    if (!g0 || !g1) continue;
    const std::string who =
        fmt::format("gpu {} ({})", g1->index, g1->uuid.empty() ? g1->pci_bus_id : g1->uuid);
    changed(out, "VBIOS " + who, g0->vbios, g1->vbios);
    changed(out, "ECC mode " + who, shown(g0->ecc_enabled), shown(g1->ecc_enabled));
    changed(out, "MIG mode " + who, shown(g0->mig_enabled), shown(g1->mig_enabled));
    changed(out, "power limit (W) " + who, shown(g0->power_limit_w), shown(g1->power_limit_w));
    const GpuFirmware* f0 = firmware_of(before, *g0);
    const GpuFirmware* f1 = firmware_of(after, *g1);
    if (f0 && f1) {
      changed(out, "InfoROM image " + who, f0->inforom_image, f1->inforom_image);
      changed(out, "InfoROM OEM " + who, f0->inforom_oem, f1->inforom_oem);
      changed(out, "InfoROM ECC " + who, f0->inforom_ecc, f1->inforom_ecc);
      changed(out, "InfoROM power " + who, f0->inforom_power, f1->inforom_power);
      changed(out, "GSP firmware " + who, f0->gsp_firmware, f1->gsp_firmware);
    }
  }
  inventory_changes(out, before, after);
  changed(out, "hardware class", before.hardware_class.slug, after.hardware_class.slug);
  changed(out, "gpuqual", before.tool.version, after.tool.version);
  return out;
}

}  // namespace gpuqual
