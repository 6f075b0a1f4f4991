#include "probes/storage/storage_pattern.hpp"

#include <cstring>

namespace gpuqual::probes {

namespace {

// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014;
// constants as in Vigna's public-domain reference, prng.di.unimi.it/splitmix64.c): one
// independent 64-bit value per word index, no state to carry between chunks.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

void fill_storage_pattern(std::uint64_t seed, std::uint64_t offset, std::span<std::byte> out) {
  const std::uint64_t first = offset / 8;
  for (std::size_t w = 0; w < out.size() / 8; ++w) {
    const std::uint64_t v = splitmix64(seed + first + w);
    std::memcpy(out.data() + w * 8, &v, 8);
  }
}

void verify_storage_pattern(std::uint64_t seed, std::uint64_t offset, std::span<const std::byte> data,
                            PatternMismatch& into) {
  const std::uint64_t first = offset / 8;
  for (std::size_t w = 0; w < data.size() / 8; ++w) {
    const std::uint64_t want = splitmix64(seed + first + w);
    std::uint64_t got = 0;
    std::memcpy(&got, data.data() + w * 8, 8);
    if (got == want) continue;
    // Count the differing bytes of the word, and remember the first one's offset.
    const std::uint64_t diff = got ^ want;
    for (int b = 0; b < 8; ++b) {
      if (((diff >> (8 * b)) & 0xff) == 0) continue;
      if (into.bad_bytes == 0) into.first_bad_offset = offset + w * 8 + static_cast<std::uint64_t>(b);
      ++into.bad_bytes;
    }
  }
}

}  // namespace gpuqual::probes
