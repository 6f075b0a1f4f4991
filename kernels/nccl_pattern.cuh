#pragma once
// The seeded pattern the all-reduce check reduces, and the sum every rank must get back.
//
// Each rank's contribution to element i is a small integer, so every partial sum NCCL forms
// (in any order, ring, tree or NVLS) is an integer the data type holds exactly: the reduced
// element must equal the expected sum bit for bit, and any difference is a wrong element, not
// rounding. Exact integers reach 2^24 in float and 256 in bf16 (8 significant bits), so the
// magnitude of one contribution shrinks as ranks grow; past 256 ranks in bf16, element i takes
// contributions only from the ranks r with r % stride == i % stride.
//
// Pure functions of (seed, rank, index): kernels fill and verify in any order, and CPU tests
// call the very same functions (GPUQUAL_HD).
#include <cstdint>
#include <cstring>

#include "kernels/hd.cuh"
#include "kernels/seeded_hash.cuh"

namespace gpuqual::kernels {

enum class ReduceType : int { f32 = 0, bf16 = 1 };

// Integers with |x| <= this are exact in the type (float: 24-bit significand, bf16: 8).
GPUQUAL_HD inline std::int64_t exact_integer_limit(ReduceType type) {
  return type == ReduceType::f32 ? (std::int64_t{1} << 24) : 256;
}

// Cap on one contribution's magnitude: wide enough that a lost or doubled contribution changes
// almost every element, small enough to stay exact with many ranks.
inline constexpr std::int64_t kMaxContribution = 1000;

struct AllreducePattern {
  std::uint64_t seed = 1;
  int nranks = 1;
  int stride = 1;     // element i gets contributions from the ranks r with r % stride == i % stride
  int magnitude = 1;  // each contribution is an integer in [-magnitude, magnitude]
};

GPUQUAL_HD inline AllreducePattern make_allreduce_pattern(std::uint64_t seed, int nranks, ReduceType type) {
  AllreducePattern p;
  p.seed = seed;
  p.nranks = nranks < 1 ? 1 : nranks;
  const std::int64_t limit = exact_integer_limit(type);
  p.stride = static_cast<int>((p.nranks + limit - 1) / limit);
  const std::int64_t contributors = (p.nranks + p.stride - 1) / p.stride;
  std::int64_t m = limit / contributors;
  if (m > kMaxContribution) m = kMaxContribution;
  if (m < 1) m = 1;
  p.magnitude = static_cast<int>(m);
  return p;
}

// Rank `rank`'s value at element i.
GPUQUAL_HD inline int allreduce_contribution(const AllreducePattern& p, int rank, std::uint64_t i) {
  if (static_cast<std::uint64_t>(rank % p.stride) != i % static_cast<std::uint64_t>(p.stride)) return 0;
  const std::uint64_t h = seeded_hash(p.seed, 0x6e63636c00000000ULL + static_cast<std::uint64_t>(rank), i);
  const std::uint64_t span = 2 * static_cast<std::uint64_t>(p.magnitude) + 1;
  return static_cast<int>(h % span) - p.magnitude;
}

// The sum over all ranks at element i: what every rank must hold after the all-reduce.
GPUQUAL_HD inline std::int64_t allreduce_expected(const AllreducePattern& p, std::uint64_t i) {
  std::int64_t sum = 0;
  const int first = static_cast<int>(i % static_cast<std::uint64_t>(p.stride));
  for (int r = first; r < p.nranks; r += p.stride) sum += allreduce_contribution(p, r, i);
  return sum;
}

// bf16 is the upper half of a float. For values bf16 holds exactly (the only ones used here) the
// lower half is zero, so truncation is the exact conversion; no cuda_bf16.h needed on the host.
GPUQUAL_HD inline std::uint16_t bf16_bits_of_exact(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);
}

GPUQUAL_HD inline float float_of_bf16_bits(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

// Element i of a reduced buffer is right when it equals the expected sum exactly (a NaN never
// does: out-of-place results start as NaN, so an element NCCL never wrote is caught).
GPUQUAL_HD inline bool allreduce_element_ok(float got, std::int64_t expected) {
  return got == static_cast<float>(expected);
}

}  // namespace gpuqual::kernels
