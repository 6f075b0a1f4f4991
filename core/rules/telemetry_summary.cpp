#include "core/rules/telemetry_summary.hpp"

#include <algorithm>

#include "core/base/stats.hpp"

namespace gpuqual {

DecimatedSeries::DecimatedSeries(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 2)) {
  values_.reserve(capacity_);
}

void DecimatedSeries::add(double v) {
  const std::uint64_t i = seen_++;
  min_ = i == 0 ? v : std::min(min_, v);
  max_ = i == 0 ? v : std::max(max_, v);
  sum_ += v;
  if (i % stride_ != 0) return;
  if (values_.size() == capacity_) {
    // Keep the values at even positions (indices 0, 2 x stride, ...), then keep every 2 x stride.
    std::size_t w = 0;
    for (std::size_t r = 0; r < values_.size(); r += 2) values_[w++] = values_[r];
    values_.resize(w);
    stride_ *= 2;
    if (i % stride_ != 0) return;
  }
  values_.push_back(v);
}

double DecimatedSeries::percentile(double p) const { return stats::percentile(values_, p); }

namespace {

// "hw_thermal_slowdown", "bit_12" for unknown ones.
std::string clock_reason_bit_name(int bit) {
  switch (bit) {
    case 0:
      return "gpu_idle";
    case 1:
      return "applications_clocks_setting";
    case 2:
      return "sw_power_cap";
    case 3:
      return "hw_slowdown";
    case 4:
      return "sync_boost";
    case 5:
      return "sw_thermal_slowdown";
    case 6:
      return "hw_thermal_slowdown";
    case 7:
      return "hw_power_brake_slowdown";
    case 8:
      return "display_clock_setting";
    case 9:
      return "board_limit";
    case 10:
      return "reliability";
    default:
      return "bit_" + std::to_string(bit);
  }
}

}  // namespace

TelemetrySummary::TelemetrySummary(std::size_t series_capacity)
    : temperature_(series_capacity),
      power_(series_capacity),
      sm_clock_(series_capacity),
      mem_clock_(series_capacity) {}

void TelemetrySummary::add(const TelemetrySample& s) {
  ++samples_;
  if (s.clock_reasons) {
    ++reasons_read_;
    const std::uint64_t m = *s.clock_reasons;
    if (m & kThrottleMask) ++throttled_;
    if (m & kPowerCapBit) ++power_capped_;
    for (int b = 0; b < 64; ++b) {
      if ((m >> b) & 1ULL) ++reason_counts_[static_cast<std::size_t>(b)];
    }
  }
  if (s.temperature_c) temperature_.add(*s.temperature_c);
  if (s.power_w) power_.add(*s.power_w);
  if (s.sm_clock_mhz) sm_clock_.add(*s.sm_clock_mhz);
  if (s.mem_clock_mhz) mem_clock_.add(*s.mem_clock_mhz);
  if (s.power_limit_w) power_limit_w_ = s.power_limit_w;
  if (s.ecc_corrected) {
    if (!ecc_c_first_) ecc_c_first_ = s.ecc_corrected;
    ecc_c_last_ = s.ecc_corrected;
  }
  if (s.ecc_uncorrected) {
    if (!ecc_u_first_) ecc_u_first_ = s.ecc_uncorrected;
    ecc_u_last_ = s.ecc_uncorrected;
  }
}

double TelemetrySummary::throttled_fraction() const {
  return reasons_read_ ? static_cast<double>(throttled_) / static_cast<double>(reasons_read_) : 0;
}

double TelemetrySummary::power_capped_fraction() const {
  return reasons_read_ ? static_cast<double>(power_capped_) / static_cast<double>(reasons_read_) : 0;
}

std::vector<std::pair<std::string, double>> TelemetrySummary::reason_fractions() const {
  std::vector<std::pair<std::string, double>> out;
  for (int b = 0; b < 64; ++b) {
    const auto n = reason_counts_[static_cast<std::size_t>(b)];
    if (n)
      out.emplace_back(clock_reason_bit_name(b), static_cast<double>(n) / static_cast<double>(reasons_read_));
  }
  return out;
}

namespace {
std::uint64_t growth(const std::optional<std::uint64_t>& first, const std::optional<std::uint64_t>& last) {
  return first && last && *last > *first ? *last - *first : 0;
}
}  // namespace

std::uint64_t TelemetrySummary::ecc_corrected_growth() const { return growth(ecc_c_first_, ecc_c_last_); }
std::uint64_t TelemetrySummary::ecc_uncorrected_growth() const { return growth(ecc_u_first_, ecc_u_last_); }

std::size_t TelemetrySummary::footprint_bytes() const {
  return sizeof(*this) + temperature_.footprint_bytes() + power_.footprint_bytes() +
         sm_clock_.footprint_bytes() + mem_clock_.footprint_bytes() - 4 * sizeof(DecimatedSeries);
}

}  // namespace gpuqual
