#include "runner/run/next_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "runner/run/run_plan.hpp"

namespace gpuqual {

namespace {

// Checks that measure the node without a GPU: the site's storage paths and endpoints
// (docs/storage-network.md).
bool check_needs_no_gpu(const std::string& check) { return check == "storage" || check == "network"; }

}  // namespace

std::vector<std::string> suites_without_gpu(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& file : suite_files(dir)) {
    try {
      const Suite s = load_suite(file);
      const bool none =
          !s.checks.empty() && std::all_of(s.checks.begin(), s.checks.end(),
                                           [](const SuiteCheck& c) { return check_needs_no_gpu(c.check); });
      if (none) out.push_back(s.name);
    } catch (const std::exception&) {
      // `gpuqual list` names a broken suite; here it is simply not one to suggest.
    }
  }
  return out;
}

bool nothing_ran_on_a_gpu(const RunRecord& record, const std::string& gpu_unavailable_reason) {
  if (gpu_unavailable_reason.empty()) return false;
  for (const auto& c : record.checks) {
    if (std::any_of(c.metrics.begin(), c.metrics.end(), [](const Metric& m) { return m.gpu.has_value(); }))
      return false;
    const bool measured = std::any_of(c.per_gpu.begin(), c.per_gpu.end(), [](const GpuCheckStatus& g) {
      return g.status == Status::pass || g.status == Status::warn || g.status == Status::fail;
    });
    if (measured) return false;
  }
  return true;
}

std::vector<std::string> next_steps(const RunRecord& record, const std::string& gpu_unavailable_reason,
                                    const NextStepsContext& context) {
  const Suite& suite = context.suite;
  std::vector<std::string> out;
  if (nothing_ran_on_a_gpu(record, gpu_unavailable_reason)) {
    out.push_back("next: no GPU was usable on this node (the causes are above), so no GPU check measured.");
    out.push_back(fmt::format("  - on a node with an NVIDIA GPU and its driver: gpuqual run --suite {}",
                              context.suite_spec));
    if (!context.gpu_free_suites.empty()) {
      out.push_back(fmt::format("  - without a GPU: gpuqual run --suite {} (its checks need none)",
                                context.gpu_free_suites.front()));
    } else {
      std::vector<std::string> free;
      for (const auto& c : suite.checks) {
        if (check_needs_no_gpu(c.check)) free.push_back(c.check);
      }
      if (!free.empty()) {
        out.push_back(
            fmt::format("  - without a GPU, only {} can measure (no suite has only those): gpuqual run "
                        "--suite {} --only {}",
                        fmt::join(free, " and "), context.suite_spec, fmt::join(free, ",")));
      }
    }
  }
  if (context.rereadable) {
    out.push_back(fmt::format("record: {} (judge it again: gpuqual compare {})", context.record_path,
                              context.record_path));
  } else {
    out.push_back("record: " + context.record_path);
  }
  return out;
}

}  // namespace gpuqual
