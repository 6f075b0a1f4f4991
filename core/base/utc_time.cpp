#include "core/base/utc_time.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>

namespace gpuqual {

namespace {
std::tm utc_tm(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);  // explicit UTC: fmt's time_point formatting changed zones across versions
  return tm;
}
}  // namespace

std::string utc_rfc3339(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", utc_tm(t));
}

std::string utc_now_rfc3339() { return utc_rfc3339(std::chrono::system_clock::now()); }

std::string utc_compact(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y%m%dT%H%M%SZ}", utc_tm(t));
}

}  // namespace gpuqual
