#pragma once
// Plain logic around the memtest patterns: names, the chunk plan over the tested region, and
// what a bad word means (which bits flipped). No CUDA calls; tested on the CPU.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/memtest_patterns.cuh"

namespace gpuqual {

using kernels::MemtestErrorEntry;
using kernels::MemtestPattern;

std::string_view to_string(MemtestPattern p);
std::optional<MemtestPattern> parse_memtest_pattern(std::string_view name);
std::vector<MemtestPattern> all_memtest_patterns();

// Bit positions (0 = least significant) where `observed` differs from `expected`.
std::vector<int> flipped_bits(std::uint64_t expected, std::uint64_t observed);
// "word 0x1f40 (byte offset 0x3fa00): expected 0x0000000000000001, read 0x0000000000000003,
// bits 1 flipped 0->1" (one sentence per logged error).
std::string describe_memtest_error(const MemtestErrorEntry& e);

// Chunk sizes (bytes, multiples of 8) that cover `target_bytes`, each at most `chunk_bytes`.
std::vector<std::uint64_t> plan_memtest_chunks(std::uint64_t target_bytes, std::uint64_t chunk_bytes);
// The bytes to test: fraction x free, rounded down to 8-byte words.
std::uint64_t memtest_target_bytes(std::uint64_t free_bytes, double fraction);

}  // namespace gpuqual
