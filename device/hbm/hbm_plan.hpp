#pragma once
// The HBM check's pure rules: kernel names, array sizing against the L2, byte accounting,
// metric names, sampled indices and the host replay of the arithmetic (BabelStream's check).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/hbm_ops.cuh"

namespace gpuqual {

using kernels::StreamKernel;

std::string_view to_string(StreamKernel k);  // copy, scale, add, triad, read, write
std::optional<StreamKernel> parse_stream_kernel(std::string_view text);
std::vector<StreamKernel> all_stream_kernels();

inline constexpr std::uint64_t kHbmMinArrayBytes = 1ULL << 30;  // 1 GiB unless the L2 asks for more
inline constexpr std::uint64_t kHbmMaxArrayBytes = 8ULL << 30;  // 2^30 doubles: the read sum stays exact

struct HbmArrayPlan {
  std::uint64_t elements = 0;  // doubles per array (a, b, d), a multiple of 2^17 (1 MiB)
  std::uint64_t bytes = 0;
  std::string note;  // when the request was raised or lowered, why
};
// Array size: `requested_bytes` (0 = max(4 x L2, 1 GiB)), raised to at least 4 x L2 so the
// kernels stream from HBM and not from cache, capped at 8 GiB and at an eighth of the GPU's memory
// (three arrays plus the rest of the process). Throws std::invalid_argument when even 4 x L2
// does not fit.
HbmArrayPlan plan_hbm_arrays(std::uint64_t l2_bytes, std::uint64_t memory_bytes,
                             std::uint64_t requested_bytes);

// Bytes read plus written by one run of kernel k over n doubles.
double hbm_bytes_per_op(StreamKernel k, std::uint64_t n);
std::string hbm_metric_name(StreamKernel k);  // hbm.triad.gbps

// The scale and write-pattern constants for a seed (finite, non-zero, exact in double).
kernels::StreamScalars hbm_scalars(std::uint64_t seed);

// `count` seeded indices in [0, n), with the first and last element always included.
std::vector<std::uint64_t> hbm_sample_indices(std::uint64_t n, int count, std::uint64_t seed);

struct HbmReplay {
  int checked = 0;
  int wrong = 0;
  std::string first_wrong;  // "d[123] = 1.5 expected 1.25"
};
// Replays kernel k on the host for each sampled index (inputs regenerated from the seed) and
// compares with the values read back from the GPU, bit for bit.
HbmReplay replay_stream_samples(StreamKernel k, std::uint64_t seed, kernels::StreamScalars sc,
                                const std::vector<std::uint64_t>& indices, const std::vector<double>& d_got);

// The exact sum of array a over n elements, summed on the host (tests; the check sums on the GPU).
double stream_expected_sum_host(std::uint64_t seed, std::uint64_t n);

}  // namespace gpuqual
