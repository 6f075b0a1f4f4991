#pragma once
// The seeded pattern that PCIe and peer copies carry, so every copied word can be checked: word
// i of a buffer filled with `seed` is copy_pattern_word(seed, i). Distinct seeds per direction
// and per GPU mean a copy that lands in the wrong buffer or from a stale one is caught too.
#include <cstdint>

#include "kernels/hd.cuh"
#include "kernels/seeded_hash.cuh"

namespace gpuqual::kernels {

GPUQUAL_HD inline std::uint64_t copy_pattern_word(std::uint64_t seed, std::uint64_t i) {
  return seeded_hash(seed, 0x70617474ULL, i);
}

}  // namespace gpuqual::kernels
