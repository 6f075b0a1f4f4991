#include "core/rules/health_sampling.hpp"

#include <algorithm>

namespace gpuqual {

LoadedSamplingReport sample_while_loaded(const LoadedSamplingSteps& s, double budget_s, double interval_s,
                                         double load_wait_s) {
  LoadedSamplingReport report;
  const bool loading = static_cast<bool>(s.start_load);
  if (loading) {
    s.start_load();
    const double t0 = s.now_s();
    while (!(report.load_ready = s.load_ready())) {
      if (s.now_s() - t0 >= load_wait_s || s.should_stop()) break;
      s.sleep_s(0.01);
    }
    report.waited_for_load_s = s.now_s() - t0;
  }
  const double t0 = s.now_s();
  do {
    s.take_sample();
    ++report.samples;
    if (s.should_stop()) break;
    s.sleep_s(interval_s);
  } while (s.now_s() - t0 < budget_s);
  if (loading && s.stop_load) s.stop_load();
  return report;
}

void keep_highest_link(GpuHealthReading& g, std::optional<int> gen, std::optional<int> width) {
  if (gen) g.pcie_gen = std::max(g.pcie_gen.value_or(*gen), *gen);
  if (width) g.pcie_width = std::max(g.pcie_width.value_or(*width), *width);
}

}  // namespace gpuqual
