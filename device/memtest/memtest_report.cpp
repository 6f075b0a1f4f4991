#include "device/memtest/memtest_report.hpp"

#include "core/record/metric_summary.hpp"

namespace gpuqual {

void report_memtest(GpuOutcome& out, const std::string& prefix, int gpu, const MemtestRunResult& run) {
  const std::string g = prefix + ".gpu" + std::to_string(gpu) + ".";
  out.metrics.push_back(summarize_metric(prefix + ".bytes_tested", "bytes", Direction::higher, gpu,
                                         {static_cast<double>(run.bytes_tested)}));
  out.metrics.push_back(summarize_metric(prefix + ".passes", "passes", Direction::higher, gpu,
                                         {static_cast<double>(run.passes_completed)}));
  if (run.seconds > 0 && run.bytes_moved > 0) {
    out.metrics.push_back(summarize_metric(prefix + ".bandwidth", "GB/s", Direction::higher, gpu,
                                           {run.bytes_moved / run.seconds / 1e9}));
  }
  out.attributes[g + "free_bytes"] = std::to_string(run.free_bytes);
  out.attributes[g + "target_bytes"] = std::to_string(run.target_bytes);
  if (!run.allocation_note.empty()) out.attributes[g + "allocation_note"] = run.allocation_note;

  std::string summary;
  for (const auto& p : run.patterns) {
    const std::string name(to_string(p.pattern));
    out.attributes[g + name + ".errors"] = std::to_string(p.errors);
    out.attributes[g + name + ".passes"] = std::to_string(p.passes_run);
    if (p.errors == 0) continue;
    std::string first;
    for (std::size_t i = 0; i < p.first_errors.size() && i < 4; ++i) {
      first += (first.empty() ? "" : "; ") + describe_memtest_error(p.first_errors[i]);
    }
    std::string all;
    for (const auto& e : p.first_errors) all += (all.empty() ? "" : "\n") + describe_memtest_error(e);
    out.attributes[g + name + ".first_errors"] = all;
    summary += (summary.empty() ? "" : " | ") + name + ": " + std::to_string(p.errors) +
               " bad words, first: " + first;
  }
  const unsigned long long total = run.total_errors();
  if (total > 0) {
    out.findings.push_back(Finding{
        .code = "memtest.bit_errors",
        .severity = Severity::fail,
        .gpu = gpu,
        .detail = std::to_string(total) + " bad 64-bit words in " + std::to_string(run.bytes_tested >> 20) +
                  " MiB: " + summary,
        .action = "drain the node; check ECC counters and remapped rows, reset the GPU and rerun memtest, "
                  "RMA if it repeats",
        .value = static_cast<double>(total),
    });
    out.add(Status::fail,
            "memtest: " + std::to_string(total) + " bad words (" + summary.substr(0, 400) + ")");
  }
}

}  // namespace gpuqual
