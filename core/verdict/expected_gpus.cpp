#include "core/verdict/expected_gpus.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "core/base/plural.hpp"
#include "core/verdict/gpu_presence.hpp"
#include "core/verdict/lost_gpus.hpp"

namespace gpuqual {

namespace {

// A plain decimal count in 1..1024, else nothing (labels and capacities are free text).
std::optional<int> count_text(const std::string& text) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 1 || v > 1024)
    return std::nullopt;
  return v;
}

std::optional<int> label_count(const std::map<std::string, std::string>& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::nullopt : count_text(it->second);
}

// Keeps the largest count; on a tie the first source given (the flag, then the baseline, ...).
void take(std::optional<ExpectedGpus>& best, std::optional<int> n, const std::string& source) {
  if (n && (!best || *n > best->count)) best = ExpectedGpus{*n, source};
}

// The NVIDIA GPUs on the bus that are this node's (pci_gpu_is_the_nodes).
// None on the bus says the node has none only when the record lists none either: a vGPU guest's
// GPUs are not on its bus (device/host/pci_gpus.hpp), so there an empty bus says nothing.
std::optional<int> pci_count(const RunRecord& r) {
  if (!r.node.pci_gpus) return std::nullopt;
  int count = 0;
  for (const auto& p : *r.node.pci_gpus) {
    if (pci_gpu_is_the_nodes(p)) ++count;
  }
  return count > 0 || r.gpus.empty() ? std::optional<int>(count) : std::nullopt;
}

}  // namespace

bool pci_gpu_is_the_nodes(const PciGpu& gpu) { return gpu.driver != "vfio-pci" && gpu.driver != "pci-stub"; }

// GFD's `mixed` strategy writes the labels of the `none` strategy (which writes no
// nvidia.com/mig.strategy), in which nvidia.com/gpu.count is the number of physical GPUs, MIG mode
// or not, and adds nvidia.com/mig-<profile>.count per profile; the `single` strategy overrides
// gpu.count with the number of MIG devices and appends the profile to the product
// (`NVIDIA-H100-80GB-HBM3-MIG-1g.10gb`; NVIDIA/k8s-device-plugin,
// https://github.com/NVIDIA/k8s-device-plugin/blob/main/docs/gpu-feature-discovery/README.md,
// "MIG 'single' strategy", and internal/lm/mig-strategy.go there).
// So on a node with a GPU in MIG mode gpu.count still counts GPUs unless the strategy is `single`
// or the product names a MIG profile.
bool labels_count_mig_devices(const std::map<std::string, std::string>& labels) {
  auto strategy = labels.find("nvidia.com/mig.strategy");
  if (strategy != labels.end() && strategy->second == "single") return true;
  auto product = labels.find("nvidia.com/gpu.product");
  return product != labels.end() && product->second.find("-MIG-") != std::string::npos;
}

std::optional<ExpectedGpus> expected_gpu_count(const std::map<std::string, std::string>& labels,
                                               const Baseline* b, std::optional<int> flag) {
  std::optional<ExpectedGpus> best;
  take(best, flag, "--expect-gpus");
  if (b) take(best, b->gpu_count, fmt::format("the baseline's gpu_count ({})", b->origin));
  if (labels_count_mig_devices(labels)) return best;  // they count MIG devices, not GPUs
  for (const char* key : {"nvidia.com/gpu.count", "nvidia.com/gpu"}) {
    take(best, label_count(labels, key), fmt::format("the node's label {}", key));
  }
  return best;
}

std::optional<ExpectedGpus> expected_gpu_count(const RunRecord& r, const Baseline* b, std::optional<int> flag,
                                               std::optional<int> before_record_gpus) {
  // With MIG on, the Node's nvidia.com/gpu (label or capacity) counts the whole GPUs alone under
  // the mixed strategy and the MIG devices under the single one: neither counts the GPUs the
  // record lists. GFD's nvidia.com/gpu.count still does, except under the single strategy
  // (labels_count_mig_devices): a MIG node that lost a whole GPU is still missing one. The bus,
  // the baseline and the flag count GPUs whatever the mode.
  const bool mig = std::any_of(r.gpus.begin(), r.gpus.end(), [](const GpuInfo& g) {
    return g.mig_enabled == true || (g.mig && g.mig->current);
  });
  std::optional<ExpectedGpus> best;
  if (mig) {
    std::map<std::string, std::string> labels = r.node.k8s_labels;
    labels.erase("nvidia.com/gpu");
    best = expected_gpu_count(labels, b, flag);
  } else {
    best = expected_gpu_count(r.node.k8s_labels, b, flag);
  }
  if (!mig && r.node.stack && r.node.stack->k8s_gpu_capacity.value) {
    take(best, count_text(*r.node.stack->k8s_gpu_capacity.value), "the Node's capacity nvidia.com/gpu");
  }
  take(best, pci_count(r), "the NVIDIA GPUs on the PCI bus");
  if (before_record_gpus && *before_record_gpus > 0) {
    take(best, before_record_gpus, "the before-record's GPUs");
  }
  return best;
}

std::optional<std::string> subset_of_node_reason(const RunRecord& r, const ExpectedGpus& expected) {
  const int have = present_gpu_count(r);
  if (have >= expected.count || !visible_devices_subset(r.node)) return std::nullopt;
  return fmt::format(
      "{} of the node's {} GPUs judged ({}; expected by {}): a verdict on those GPUs, "
      "not on the node",
      have, expected.count, r.node.visible_devices, expected.source);
}

std::optional<FindingRow> missing_gpus_row(const RunRecord& r, const ExpectedGpus& expected) {
  // A GPU NVML reports lost is listed but not present (core/verdict/lost_gpus.hpp).
  const int have = present_gpu_count(r);
  if (have >= expected.count || visible_devices_subset(r.node)) return std::nullopt;
  const int missing = expected.count - have;
  const int lost = static_cast<int>(r.gpus.size()) - have;
  FindingRow row;
  row.check = "gpus";
  row.finding.code = "gpu.missing";
  row.finding.severity = Severity::fail;
  row.finding.value = missing;
  row.finding.detail = fmt::format("{} of {} missing: the record has {}{} (expected by {})", missing,
                                   plural(expected.count, "expected GPU"), have,
                                   lost > 0 ? fmt::format(" usable, {} lost", lost) : "", expected.source);
  // What the PCI bus shows tells "fell off the bus" (fewer there too) from "on the bus but not
  // visible to the driver" (gpu.not_visible names those by bus id).
  if (r.node.pci_gpus) {
    std::vector<std::string> ids;
    for (const auto& p : *r.node.pci_gpus) ids.push_back(p.bus_id);
    row.finding.detail += fmt::format("; the PCI bus shows {}{}", plural(ids.size(), "NVIDIA GPU"),
                                      ids.empty() ? "" : fmt::format(" ({})", fmt::join(ids, ", ")));
  }
  row.finding.action =
      "check that every GPU is seated and visible (lspci -d 10de:, nvidia-smi -L); drain the node";
  row.status = Status::fail;
  row.reason = row.finding.detail;
  return row;
}

}  // namespace gpuqual
