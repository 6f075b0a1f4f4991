#pragma once
// The seeded pattern the storage check writes and verifies. Every 8-byte word of the test file
// is splitmix64(seed + word index), so any byte at any offset can be recomputed without keeping
// the data: a reordered, zeroed, stale or flipped block is caught on read-back, and a file
// written by another run (another seed) never verifies by chance.
#include <cstddef>
#include <cstdint>
#include <span>

namespace gpuqual::probes {

// Fills `out` with the pattern bytes of the file range [offset, offset + out.size()).
// `offset` and `out.size()` must be multiples of 8 (the check writes whole aligned chunks).
void fill_storage_pattern(std::uint64_t seed, std::uint64_t offset, std::span<std::byte> out);

struct PatternMismatch {
  std::uint64_t bad_bytes = 0;         // bytes that differ from the pattern
  std::uint64_t first_bad_offset = 0;  // file offset of the first one (valid when bad_bytes > 0)
};

// Compares `data` (the file range starting at `offset`, a multiple of 8) with the pattern,
// byte by byte, and adds what differs to `into`.
void verify_storage_pattern(std::uint64_t seed, std::uint64_t offset, std::span<const std::byte> data,
                            PatternMismatch& into);

}  // namespace gpuqual::probes
