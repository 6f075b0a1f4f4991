#pragma once
// Burn-in time series for the HTML report: the TFLOP/s windows each GPU's burnin metric keeps in
// the record, and the 1 Hz telemetry the burnin check streams to its side file
// (burnin-telemetry.jsonl: one JSON object per GPU per second, device/monitor/telemetry_sampler.cpp).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual::html {

using Series = std::vector<std::pair<double, double>>;  // (seconds since start, value)

struct BurninTelemetry {
  std::string path;  // the side file read ("" when none was found)
  std::string note;  // why there is none, or what was skipped
  std::map<int, Series> temperature_c, power_w, sm_clock_mhz;
  std::map<int, std::vector<std::pair<double, bool>>> throttled;  // (t, slowed down)
};

// Finds the side file named by the burnin check's `burnin.telemetry_file` attribute (as given,
// else next to the record) and reads it, keeping at most `max_points` points per GPU and series
// (evenly decimated, so hours at 1 Hz stay small). Lines that do not parse (a run killed mid-line)
// are skipped and counted in `note`. Returns an empty telemetry with the reason when the record
// has no burnin check or the file is not there.
BurninTelemetry load_burnin_telemetry(const RunRecord& record, const std::string& record_path,
                                      std::size_t max_points = 600);

// The "Burn-in" section, or "" when the record has no burnin check.
std::string burnin_section(const RunRecord& record, const BurninTelemetry* telemetry);

}  // namespace gpuqual::html
