#pragma once
// Counter-based random numbers: the value for (seed, stream, index) is a pure function, so a
// kernel can fill a buffer in any order and the host can regenerate any single element to
// check it. SplitMix64's finaliser (Steele, Lea, Flood 2014) gives full avalanche per call.
#include <cstdint>

#include "kernels/hd.cuh"

namespace gpuqual::kernels {

GPUQUAL_HD inline std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Independent streams per (seed, stream); consecutive indices are SplitMix64 steps.
GPUQUAL_HD inline std::uint64_t seeded_hash(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t base = mix64(seed + 0x9e3779b97f4a7c15ULL * (stream + 1));
  return mix64(base + 0x9e3779b97f4a7c15ULL * (index + 1));
}

}  // namespace gpuqual::kernels
