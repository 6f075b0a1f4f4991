#pragma once
// Statistics as free functions over spans of samples. Conventions for the edge cases are
// explicit: an empty span has no median (NaN is never returned silently; callers check
// `samples.empty()` first, these functions return 0 for empty input and document it), n < 2
// has a CV and stddev of 0, and a zero mean gives a CV of 0 rather than Inf.
#include <span>
#include <vector>

namespace gpuqual::stats {

double mean(std::span<const double> x);                  // 0 for empty
double median(std::span<const double> x);                // 0 for empty; mean of the middle two for even n
double stddev(std::span<const double> x);                // sample stddev (n-1); 0 for n < 2
double cv(std::span<const double> x);                    // stddev / |mean|; 0 for n < 2 or mean 0
double mad(std::span<const double> x);                   // median absolute deviation (raw, unscaled)
double robust_sigma(std::span<const double> x);          // 1.4826 * MAD: stddev estimate for normal data
double percentile(std::span<const double> x, double p);  // linear interpolation, p in [0, 100]; 0 for empty
// The same value as median(x), bit for bit, for any `hint`; fast (two branch-free passes) when
// the hint lies between the two middle samples, as a stored median does: record readers check
// every stored median against its samples.
double median_with_hint(std::span<const double> x, double hint);
double min(std::span<const double> x);  // 0 for empty
double max(std::span<const double> x);  // 0 for empty

}  // namespace gpuqual::stats
