#pragma once
// Fixed-size summaries of long telemetry series (burn-in: hours at 1 Hz per GPU). Memory does not
// grow with duration: every full series streams to a side file, and in memory each quantity
// keeps counters, extremes and a decimated series of at most `capacity` values from which
// percentiles are taken (a uniform sample over time: when full, every other value is dropped
// and only every 2nd, 4th, ... later value is kept).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuqual {

class DecimatedSeries {
 public:
  explicit DecimatedSeries(std::size_t capacity = 1024);
  void add(double v);
  const std::vector<double>& values() const { return values_; }  // the kept, time-ordered values
  std::uint64_t seen() const { return seen_; }
  std::uint64_t stride() const { return stride_; }
  double percentile(double p) const;  // over the kept values; 0 when empty
  double min() const { return min_; }
  double max() const { return max_; }
  double mean() const { return seen_ ? sum_ / static_cast<double>(seen_) : 0; }  // exact, all values
  std::size_t footprint_bytes() const { return sizeof(*this) + values_.capacity() * sizeof(double); }

 private:
  std::size_t capacity_;
  std::vector<double> values_;
  std::uint64_t seen_ = 0, stride_ = 1;
  double min_ = 0, max_ = 0, sum_ = 0;
};

// One telemetry reading of one GPU. Absent fields were not readable (NVML lacks them).
struct TelemetrySample {
  double t_s = 0;  // seconds since the start
  std::optional<double> temperature_c, power_w, power_limit_w, sm_clock_mhz, mem_clock_mhz;
  std::optional<std::uint64_t> clock_reasons;                   // nvmlClocksEventReason* bit mask
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected;  // volatile totals
};

// NVML clock-event reason bits that mean the GPU slowed down (thermal, power brake, HW
// slowdown, board limit, reliability) and their names. sw_power_cap (0x4) is named and counted
// separately: an SXM GPU under dense GEMM sits at its power cap by design.
inline constexpr std::uint64_t kThrottleMask = 0x8 | 0x20 | 0x40 | 0x80 | 0x200 | 0x400;
inline constexpr std::uint64_t kPowerCapBit = 0x4;

class TelemetrySummary {
 public:
  explicit TelemetrySummary(std::size_t series_capacity = 1024);
  void add(const TelemetrySample& s);

  std::uint64_t samples() const { return samples_; }
  std::uint64_t throttled_samples() const { return throttled_; }
  std::uint64_t reasons_read() const { return reasons_read_; }  // samples whose clock reasons were read
  double throttled_fraction() const;                            // of samples whose reasons were read
  double power_capped_fraction() const;
  // Per reason bit: the fraction of read samples that had it ("hw_thermal_slowdown" -> 0.1).
  std::vector<std::pair<std::string, double>> reason_fractions() const;
  const DecimatedSeries& temperature() const { return temperature_; }
  const DecimatedSeries& power() const { return power_; }
  const DecimatedSeries& sm_clock() const { return sm_clock_; }
  const DecimatedSeries& mem_clock() const { return mem_clock_; }
  std::optional<double> power_limit_w() const { return power_limit_w_; }  // the last one read
  // Growth of the ECC counters from the first to the last reading (0 when never read).
  std::uint64_t ecc_corrected_growth() const;
  std::uint64_t ecc_uncorrected_growth() const;
  std::size_t footprint_bytes() const;

 private:
  std::uint64_t samples_ = 0, reasons_read_ = 0, throttled_ = 0, power_capped_ = 0;
  std::array<std::uint64_t, 64> reason_counts_{};
  DecimatedSeries temperature_, power_, sm_clock_, mem_clock_;
  std::optional<double> power_limit_w_;
  std::optional<std::uint64_t> ecc_c_first_, ecc_c_last_, ecc_u_first_, ecc_u_last_;
};

}  // namespace gpuqual
