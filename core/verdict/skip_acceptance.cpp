#include "core/verdict/skip_acceptance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

#include "core/base/plural.hpp"
#include "core/record/skip_reason.hpp"
#include "core/verdict/dra_skips.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/gpu_partition_skips.hpp"

namespace gpuqual {

namespace {

struct Cc {
  int major = 0;
  int minor = 0;
  friend auto operator<=>(const Cc&, const Cc&) = default;
};

// "9.0" → {9, 0}; nullopt when the record does not state one.
std::optional<Cc> compute_capability(const std::string& text) {
  Cc cc;
  const char* end = text.data() + text.size();
  auto [dot, ec] = std::from_chars(text.data(), end, cc.major);
  if (ec != std::errc() || dot == end || *dot != '.') return std::nullopt;
  auto [last, ec2] = std::from_chars(dot + 1, end, cc.minor);
  if (ec2 != std::errc() || last != end) return std::nullopt;
  return cc;
}

// Every precision gpuqual runs exists from this compute capability on (the fp8 row of
// gemm_precision_need's table).
constexpr Cc kEveryPrecision{8, 9};
// Row remapping replaced page retirement with Ampere (NVIDIA, "GPU Memory Error Management").
constexpr Cc kRowRemapping{8, 0};

std::optional<int> count_of(const std::string& text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

// How many GPUs each source of the record says the node has: the record's GPUs, the PCI bus,
// the class, the node's labels and Kubernetes capacity (each when the record has it).
std::vector<std::pair<std::string, int>> node_gpu_counts(const RunRecord& r) {
  std::vector<std::pair<std::string, int>> out{{"the record's GPU list", static_cast<int>(r.gpus.size())}};
  if (r.node.pci_gpus) {
    // A GPU handed to a VM is not this node's, as for the expected GPU count (docs/compare.md,
    // "What earns a PASS").
    const auto ours = std::count_if(r.node.pci_gpus->begin(), r.node.pci_gpus->end(), pci_gpu_is_the_nodes);
    out.emplace_back("the PCI bus", static_cast<int>(ours));
  }
  out.emplace_back("hardware_class.gpu_count", r.hardware_class.gpu_count);
  for (const char* key : {"nvidia.com/gpu.count", "nvidia.com/gpu"}) {
    auto it = r.node.k8s_labels.find(key);
    if (it == r.node.k8s_labels.end()) continue;
    if (auto n = count_of(it->second)) out.emplace_back(fmt::format("the label {}", key), *n);
  }
  if (r.node.stack && r.node.stack->k8s_gpu_capacity.value) {
    if (auto n = count_of(*r.node.stack->k8s_gpu_capacity.value))
      out.emplace_back("the Node's nvidia.com/gpu capacity", *n);
  }
  return out;
}

std::optional<std::string> unless_node_has(const RunRecord& r, std::string_view code, int gpus) {
  for (const auto& [source, n] : node_gpu_counts(r)) {
    if (n != gpus) return fmt::format("{}, but {} says {}", code, source, plural(n, "GPU"));
  }
  return std::nullopt;
}

// p2p and nccl_allreduce run among the whole GPUs of a node with GPUs in MIG mode
// (runner/run/device_parts.hpp, docs/mig.md "What does not apply"): one whole GPU beside them is a
// single GPU to them, when every source that counts physical GPUs agrees the node has none beyond
// those the record lists. The Node's nvidia.com/gpu (label and capacity) counts whole GPUs or MIG
// devices there, and gpu.count counts MIG devices under the single strategy: not asked.
std::optional<std::string> unless_single_gpu(const RunRecord& r, std::string_view code) {
  const auto in_mig = std::count_if(r.gpus.begin(), r.gpus.end(), [](const GpuInfo& g) {
    return g.mig_enabled == true || (g.mig && g.mig->current);
  });
  if (in_mig == 0) return unless_node_has(r, code, 1);
  const auto whole = static_cast<std::ptrdiff_t>(r.gpus.size()) - in_mig;
  if (whole != 1) return fmt::format("{}, but the record has {} GPUs not in MIG mode", code, whole);
  const bool single_strategy = labels_count_mig_devices(r.node.k8s_labels);
  for (const auto& [source, n] : node_gpu_counts(r)) {
    if (source == "the label nvidia.com/gpu" || source == "the Node's nvidia.com/gpu capacity") continue;
    if (source == "the label nvidia.com/gpu.count" && single_strategy) continue;
    if (n != static_cast<int>(r.gpus.size()))
      return fmt::format("{}, but {} says {} where the record lists {}", code, source, plural(n, "GPU"),
                         r.gpus.size());
  }
  return std::nullopt;
}

// The GPUs a scope covers: the one GPU, or every GPU of the record for the node.
std::vector<const GpuInfo*> scope_gpus(const RunRecord& r, const std::optional<int>& gpu) {
  std::vector<const GpuInfo*> out;
  for (const auto& g : r.gpus) {
    if (!gpu || g.index == *gpu) out.push_back(&g);
  }
  return out;
}

// Each GPU of the scope must be older than `need` (by its recorded compute capability).
std::optional<std::string> unless_older_than(const RunRecord& r, const std::optional<int>& gpu,
                                             std::string_view code, Cc need, std::string_view has) {
  const auto gpus = scope_gpus(r, gpu);
  if (gpus.empty()) return fmt::format("{}, but the record has no such GPU", code);
  for (const GpuInfo* g : gpus) {
    const auto cc = compute_capability(g->compute_capability);
    if (!cc) return fmt::format("{}, but GPU {} has no compute capability in the record", code, g->index);
    if (*cc >= need) {
      return fmt::format("{}, but GPU {} is compute capability {} ({})", code, g->index,
                         g->compute_capability, has);
    }
  }
  return std::nullopt;
}

// The precisions the GEMM check says it skipped ("gemm.fp8.skipped") must each need more than
// the GPU has, and no GEMM metric may be on the GPU (a precision that ran).
std::optional<std::string> unless_precisions_lacking(const RunRecord& r, const CheckResult& c,
                                                     const std::optional<int>& gpu) {
  const std::string_view code = "precision_unsupported";
  if (auto why = unless_older_than(r, gpu, code, kEveryPrecision, "it has every precision gpuqual runs"))
    return why;
  for (const auto& m : c.metrics) {
    if (m.gpu && (!gpu || *m.gpu == *gpu))
      return fmt::format("{}, but GPU {} has the metric {}", code, *m.gpu, m.name);
  }
  for (const auto& [key, value] : c.attributes) {
    if (!key.starts_with("gemm.") || !key.ends_with(".skipped") || key.size() <= 13) continue;
    const std::string_view name = std::string_view(key).substr(5, key.size() - 13);
    const auto need = gemm_precision_need(name);
    if (!need) return fmt::format("{}, but gpuqual does not know the precision {}", code, name);
    if (auto why =
            unless_older_than(r, gpu, code, Cc{need->first, need->second}, fmt::format("it has {}", name))) {
      return why;
    }
  }
  return std::nullopt;
}

// The fabric check read /sys (its `root`): an InfiniBand device in the record's stack is an HCA,
// and a record without the NIC list (no stack, or /sys/class unread) cannot bear out that there
// is none: "no HCA" is then what the check says, not what the record shows.
std::optional<std::string> unless_no_hca(const RunRecord& r, const CheckResult& c) {
  auto root = c.attributes.find("root");
  if (root != c.attributes.end() && root->second != "/") return std::nullopt;
  if (!r.node.stack) return std::string("no_hca, but the record has no stack inventory to bear it out");
  if (!r.node.stack->nics) {
    return fmt::format("no_hca, but the record's NIC list was not read ({})",
                       r.node.stack->nics_reason.empty() ? "no reason given" : r.node.stack->nics_reason);
  }
  for (const auto& nic : *r.node.stack->nics) {
    if (nic.sysfs_class == "infiniband")
      return fmt::format("no_hca, but the record's stack lists the HCA {}", nic.name);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> not_applicable_refusal(const RunRecord& r, const CheckResult& check,
                                                  std::string_view code, const std::optional<int>& gpu) {
  const NotApplicableCode* it = find_not_applicable_code(code);
  if (!it) return fmt::format("\"{}\" is not a not-applicable code", code);
  if (check.name.empty() || std::find(it->checks.begin(), it->checks.end(), check.name) == it->checks.end()) {
    return fmt::format("{} is not a code of the check {}", code, check.name);
  }
  if (code == "single_gpu") return unless_single_gpu(r, code);
  if (code == "no_gpu") return unless_node_has(r, code, 0);
  if (code == "row_remap_unsupported") {
    return unless_older_than(r, gpu, code, kRowRemapping, "Ampere or newer remaps rows");
  }
  if (code == "precision_unsupported") return unless_precisions_lacking(r, check, gpu);
  if (code == "no_hca") return unless_no_hca(r, check);
  if (code == "no_dra") return no_dra_refusal(check);
  if (is_gpu_partition_code(code)) return gpu_partition_refusal(r, code, gpu, check.name);
  return std::nullopt;  // not_configured: only the site knows what a node must reach
}

bool skip_is_acceptable(const RunRecord& r, const CheckResult& check, const std::optional<int>& gpu,
                        std::string_view reason_code, bool baseline_optional) {
  if (check.optional || baseline_optional) return true;
  return !reason_code.empty() && !not_applicable_refusal(r, check, reason_code, gpu);
}

}  // namespace gpuqual
