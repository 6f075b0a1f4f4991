#include "core/diff_stack.hpp"

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

void changed(std::vector<std::string>& out, const std::string& what, const std::string& a, const std::string& b) {
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

const GpuInfo* by_index(const std::vector<GpuInfo>& gpus, int index) {
  for (const auto& g : gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> stack_changes(const RunRecord& before, const RunRecord& after, const GpuMatching& gpus) {
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
    if (!ra.count(name)) out.push_back(fmt::format("container runtime {}: (none) → {}", name, shown(version)));
  }
  for (const auto& p : gpus.pairs) {
    if (!p.after) continue;
    const GpuInfo* g0 = by_index(before.gpus, p.before);
    const GpuInfo* g1 = by_index(after.gpus, *p.after);
    if (!g0 || !g1) continue;
    const std::string who = fmt::format("gpu {} ({})", g1->index, g1->uuid.empty() ? g1->pci_bus_id : g1->uuid);
    changed(out, "VBIOS " + who, g0->vbios, g1->vbios);
    changed(out, "ECC mode " + who, shown(g0->ecc_enabled), shown(g1->ecc_enabled));
    changed(out, "MIG mode " + who, shown(g0->mig_enabled), shown(g1->mig_enabled));
    changed(out, "power limit (W) " + who, shown(g0->power_limit_w), shown(g1->power_limit_w));
  }
  changed(out, "hardware class", before.hardware_class.slug, after.hardware_class.slug);
  changed(out, "gpuqual", before.tool.version, after.tool.version);
  return out;
}

}  // namespace gpuqual
