#include "device/memtest/memtest_plan.hpp"

#include <fmt/format.h>

#include <array>

namespace gpuqual {
namespace {
constexpr std::array<std::string_view, kernels::kMemtestPatternCount> kNames = {
    "walking_ones",    "walking_zeros",     "own_address",
    "moving_inv_ones", "moving_inv_random", "random_sequence"};
}  // namespace

std::string_view to_string(MemtestPattern p) { return kNames.at(static_cast<std::size_t>(p)); }

std::optional<MemtestPattern> parse_memtest_pattern(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<MemtestPattern>(i);
  }
  return std::nullopt;
}

std::vector<MemtestPattern> all_memtest_patterns() {
  std::vector<MemtestPattern> out;
  for (std::uint32_t i = 0; i < kernels::kMemtestPatternCount; ++i)
    out.push_back(static_cast<MemtestPattern>(i));
  return out;
}

std::vector<int> flipped_bits(std::uint64_t expected, std::uint64_t observed) {
  std::vector<int> bits;
  const std::uint64_t diff = expected ^ observed;
  for (int b = 0; b < 64; ++b) {
    if ((diff >> b) & 1ULL) bits.push_back(b);
  }
  return bits;
}

std::string describe_memtest_error(const MemtestErrorEntry& e) {
  std::string up, down;
  for (int b : flipped_bits(e.expected, e.observed)) {
    std::string& list = ((e.observed >> b) & 1ULL) ? up : down;
    list += (list.empty() ? "" : ",") + std::to_string(b);
  }
  std::string flips;
  if (!up.empty()) flips += "bits " + up + " flipped 0->1";
  if (!down.empty()) flips += std::string(flips.empty() ? "" : ", ") + "bits " + down + " flipped 1->0";
  return fmt::format("word {:#x} (byte offset {:#x}), step {}: expected {:#018x}, read {:#018x}, {}", e.index,
                     e.index * 8, e.step, e.expected, e.observed, flips);
}

std::vector<std::uint64_t> plan_memtest_chunks(std::uint64_t target_bytes, std::uint64_t chunk_bytes) {
  std::vector<std::uint64_t> chunks;
  chunk_bytes = chunk_bytes / 8 * 8;
  if (chunk_bytes == 0) return chunks;
  for (std::uint64_t left = target_bytes / 8 * 8; left > 0;) {
    const std::uint64_t c = left < chunk_bytes ? left : chunk_bytes;
    chunks.push_back(c);
    left -= c;
  }
  return chunks;
}

std::uint64_t memtest_target_bytes(std::uint64_t free_bytes, double fraction) {
  if (fraction <= 0) return 0;
  if (fraction > 1) fraction = 1;
  return static_cast<std::uint64_t>(static_cast<double>(free_bytes) * fraction) / 8 * 8;
}

}  // namespace gpuqual
