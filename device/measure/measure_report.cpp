#include "device/measure/measure_report.hpp"

#include <sstream>

#include "core/base/plural.hpp"
#include "core/base/stats.hpp"

namespace gpuqual {

void record_measurement_attributes(GpuOutcome& out, const std::string& key, int gpu, const MeasureResult& m) {
  const std::string prefix = key + ".gpu" + std::to_string(gpu) + ".";
  std::ostringstream stop;
  stop << to_string(m.stop) << " after " << m.seconds_per_op.size() << " samples, CV " << m.cv * 100 << " %";
  out.attributes[prefix + "stop"] = stop.str();
  out.attributes[prefix + "reps_per_sample"] = std::to_string(m.reps_per_sample);
  if (!m.sm_clock_mhz.empty()) {
    std::ostringstream mhz;
    mhz << stats::median(m.sm_clock_mhz);
    out.attributes[prefix + "sm_clock_mhz"] = mhz.str();
  }
  if (!m.throttle_reasons.empty()) out.attributes[prefix + "clock_reasons"] = m.throttle_reasons;
  // A budget that ran out before min_samples leaves a figure too thin to judge a node on
  // (docs/compare.md, "No false pass"): recorded, but warn.
  const auto n = static_cast<int>(m.seconds_per_op.size());
  if (m.stop == StopReason::budget && n < m.min_samples) {
    out.add(Status::warn, key + " gpu " + std::to_string(gpu) + ": too few samples to gate on (" +
                              std::to_string(n) + " of min_samples " + std::to_string(m.min_samples) +
                              " before the budget ran out)");
  }
}

std::string invisible_reason(const std::vector<int>& invisible, int device_count) {
  std::ostringstream out;
  out << "GPU ";
  for (std::size_t i = 0; i < invisible.size(); ++i) out << (i ? ", " : "") << invisible[i];
  out << " requested but CUDA sees " << plural(device_count, "device");
  return out.str();
}

std::string join_numbers(const std::vector<std::uint64_t>& values) {
  std::string out;
  for (auto v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

}  // namespace gpuqual
