// The burn-in fingerprint (kernels/burnin_hash.cuh, the function the GPU kernel sums): the same
// output in any summation order gives the same bits, and any single changed word changes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/burnin_hash.cuh"

namespace gpuqual {
namespace {

std::uint64_t fingerprint(const std::vector<std::uint64_t>& words, const std::vector<std::size_t>& order) {
  std::uint64_t sum = 0;
  for (std::size_t i : order) sum += kernels::burnin_word_term(i, words[i]);
  return sum;
}

TEST(BurninHash, OrderIndependentAndSensitiveToEveryWordAndBit) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> words(4096);
  for (auto& w : words) w = rng();
  std::vector<std::size_t> order(words.size());
  std::iota(order.begin(), order.end(), 0);
  const std::uint64_t ref = fingerprint(words, order);
  std::shuffle(order.begin(), order.end(), rng);
  EXPECT_EQ(fingerprint(words, order), ref);
  for (std::size_t i : {std::size_t{0}, std::size_t{1234}, words.size() - 1}) {
    for (int bit : {0, 15, 63}) {
      auto bad = words;
      bad[i] ^= 1ULL << bit;
      EXPECT_NE(fingerprint(bad, order), ref) << "word " << i << " bit " << bit;
    }
  }
  // Two words swapped (a misplaced write) changes it too: the index is part of each term.
  auto swapped = words;
  std::swap(swapped[10], swapped[20]);
  EXPECT_NE(fingerprint(swapped, order), ref);
}

}  // namespace
}  // namespace gpuqual
