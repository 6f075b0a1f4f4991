#include "core/rules/burnin_logic.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gpuqual {

bool ResultComparator::observe(std::uint64_t iteration, std::uint64_t hash) {
  ++iterations_;
  if (!reference_) {
    reference_ = hash;
    return true;
  }
  if (hash == *reference_) return true;
  ++mismatches_;
  if (!first_bad_) {
    first_bad_ = iteration;
    first_bad_hash_ = hash;
  }
  return false;
}

std::string ResultComparator::describe() const {
  if (mismatches_ == 0) return fmt::format("all {} iterations matched bit for bit", iterations_);
  return fmt::format(
      "{} of {} iterations differed from the first (first: iteration {}, hash {:#018x} vs {:#018x})",
      mismatches_, iterations_, *first_bad_, *first_bad_hash_, *reference_);
}

std::optional<std::string> burnin_incomplete_reason(double elapsed_s, double target_s, double min_s) {
  if (elapsed_s >= min_s) return std::nullopt;
  if (target_s >= 120) {
    return fmt::format("stopped after {} of {} minutes", static_cast<long long>(std::floor(elapsed_s / 60)),
                       static_cast<long long>(std::llround(target_s / 60)));
  }
  return fmt::format("stopped after {} of {} seconds", static_cast<long long>(std::floor(elapsed_s)),
                     static_cast<long long>(std::llround(target_s)));
}

TelemetryVerdict judge_telemetry(const TelemetrySummary& s, const BurninThresholds& t) {
  TelemetryVerdict v;
  if (s.samples() > 0 && s.throttled_fraction() > t.throttled_fraction_warn) {
    v.throttle_warn = true;
    std::string why;
    for (const auto& [name, f] : s.reason_fractions()) {
      if (name == "gpu_idle" || name == "applications_clocks_setting" || name == "sync_boost" ||
          name == "display_clock_setting")
        continue;
      why += fmt::format("{}{} {:.1f}%", why.empty() ? "" : ", ", name, 100 * f);
    }
    v.throttle_detail = fmt::format("clocks slowed {:.1f}% of the time (threshold {:.1f}%): {}",
                                    100 * s.throttled_fraction(), 100 * t.throttled_fraction_warn, why);
  }
  if (s.ecc_uncorrected_growth() > 0 || s.ecc_corrected_growth() > 0) {
    // Uncorrected errors are data loss; corrected ones growing under load point at a failing
    // HBM stack. Both are new since the burn-in started.
    v.ecc_fail = s.ecc_uncorrected_growth() > 0;
    v.ecc_detail = fmt::format("ECC counters grew during burn-in: {} uncorrected, {} corrected",
                               s.ecc_uncorrected_growth(), s.ecc_corrected_growth());
  }
  return v;
}

std::vector<std::string> burnin_unwatched(std::size_t telemetry_samples, bool xid_watch_on,
                                          const std::string& xid_off_reason) {
  std::vector<std::string> out;
  if (telemetry_samples == 0) {
    out.push_back("no telemetry sample: throttling and ECC growth during the burn-in cannot be judged");
  }
  if (!xid_watch_on) {
    out.push_back("Xid watch off" + (xid_off_reason.empty() ? std::string() : " (" + xid_off_reason + ")") +
                  ": an Xid during the burn-in would go unseen");
  }
  return out;
}

}  // namespace gpuqual
