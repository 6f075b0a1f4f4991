#pragma once
// The line protocol by which a production image reports its own figures to a container probe
// (docs/container-probes.md, "Metrics from the image"). A line of the container's output
//
//   gpuqual-metric {"name": "step_time", "unit": "ms", "direction": "lower", "samples": [41.8, 42.0]}
//   gpuqual-metric {"name": "tokens_per_s", "unit": "tokens/s", "direction": "higher", "value": 1873.2}
//
// becomes the record metric container.<probe>.<name> (node scope), judged by baselines, diff and
// gate like every other metric. The same name on several lines adds samples to one metric. A
// line that starts with the marker but is not that JSON (not an object, unknown or missing
// field, unknown unit, a value that is not a finite number, a name that is not
// [a-z0-9_.] or is reserved) is a `container.metric_malformed` finding, never an exception;
// past `max_lines` marker lines, or on a line longer than kMaxMetricLineBytes, the rest is
// ignored with one `container.metric_limit` finding. Other lines are the image's own business.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual::probes {

inline constexpr std::string_view kMetricLineMarker = "gpuqual-metric ";
inline constexpr std::size_t kDefaultMaxMetricLines = 64;
inline constexpr std::size_t kMaxMetricLineBytes = 4096;
inline constexpr std::size_t kMaxMetricSamples = 1000;  // per metric, over all its lines

struct MetricLines {
  std::vector<Metric> metrics;    // named container.<probe>.<name>, summarized from the samples
  std::vector<Finding> findings;  // container.metric_malformed, container.metric_limit (warn)
  std::size_t lines = 0;          // marker lines seen (counted up to the limit)
};

// `output`: what the probe kept of the container's output; `truncated`: the capture was cut, so
// a last line without a newline is incomplete and is not judged. `probe_key`: the probe's slug.
MetricLines parse_metric_lines(std::string_view output, bool truncated, const std::string& probe_key,
                               std::size_t max_lines = kDefaultMaxMetricLines);

}  // namespace gpuqual::probes
