#pragma once
// The burn-in's output fingerprint: the wrapping sum over 64-bit words of mix64(word + index x
// golden). The sum is order-independent, so GPU threads may add in any order and still give
// the same bits for the same output; and since mix64 is a bijection, changing any single word
// always changes its term and therefore the sum (a one-word corruption is never missed).
#include <cstdint>

#include "kernels/hd.cuh"
#include "kernels/seeded_hash.cuh"

namespace gpuqual::kernels {

GPUQUAL_HD inline std::uint64_t burnin_word_term(std::uint64_t index, std::uint64_t word) {
  return mix64(word + 0x9e3779b97f4a7c15ULL * (index + 1));
}

}  // namespace gpuqual::kernels
