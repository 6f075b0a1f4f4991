#include "core/expected_gpus.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

namespace {

// A label value that is a plain decimal count in 1..1024, else nothing (labels are free text).
std::optional<int> label_count(const std::map<std::string, std::string>& labels, const char* key) {
  auto it = labels.find(key);
  if (it == labels.end()) return std::nullopt;
  const std::string& text = it->second;
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 1 || v > 1024) return std::nullopt;
  return v;
}

}  // namespace

std::optional<ExpectedGpus> expected_gpu_count(const std::map<std::string, std::string>& labels, const Baseline* b,
                                               std::optional<int> flag) {
  if (flag) return ExpectedGpus{*flag, "--expect-gpus"};
  if (b && b->gpu_count) return ExpectedGpus{*b->gpu_count, fmt::format("the baseline's gpu_count ({})", b->origin)};
  for (const char* key : {"nvidia.com/gpu.count", "nvidia.com/gpu"}) {
    if (auto n = label_count(labels, key)) return ExpectedGpus{*n, fmt::format("the node's label {}", key)};
  }
  return std::nullopt;
}

std::optional<ExpectedGpus> expected_gpu_count(const RunRecord& r, const Baseline* b, std::optional<int> flag) {
  return expected_gpu_count(r.node.k8s_labels, b, flag);
}

std::optional<FindingRow> missing_gpus_row(const RunRecord& r, const ExpectedGpus& expected) {
  const int have = static_cast<int>(r.gpus.size());
  if (have >= expected.count) return std::nullopt;
  const int missing = expected.count - have;
  FindingRow row;
  row.check = "gpus";
  row.finding.code = "gpu.missing";
  row.finding.severity = Severity::fail;
  row.finding.value = missing;
  row.finding.detail = fmt::format("{} of {} expected GPU{} missing: the record has {} (expected by {})", missing,
                                   expected.count, expected.count == 1 ? "" : "s", have, expected.source);
  // What the PCI bus shows tells "fell off the bus" (fewer there too) from "on the bus but not
  // visible to the driver" (gpu.not_visible names those by bus id).
  if (r.node.pci_gpus) {
    std::vector<std::string> ids;
    for (const auto& p : *r.node.pci_gpus) ids.push_back(p.bus_id);
    row.finding.detail += fmt::format("; the PCI bus shows {} NVIDIA GPU{}{}", ids.size(), ids.size() == 1 ? "" : "s",
                                      ids.empty() ? "" : fmt::format(" ({})", fmt::join(ids, ", ")));
  }
  row.finding.action = "check that every GPU is seated and visible (lspci -d 10de:, nvidia-smi -L); drain the node";
  row.status = Status::fail;
  row.reason = row.finding.detail;
  return row;
}

}  // namespace gpuqual
