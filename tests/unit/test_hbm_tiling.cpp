// The HBM kernels' per-thread indexing (kernels/hbm_tiling.cuh), run on the CPU exactly as
// every GPU thread runs it: each vector is visited exactly once, and each unrolled load is
// coalesced (consecutive threads, consecutive vectors).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/hbm_tiling.cuh"

namespace gpuqual::kernels {
namespace {

// What the kernel's loops visit, counted per vector.
std::vector<int> visits(std::uint64_t vectors, std::uint64_t threads, unsigned unroll) {
  std::vector<int> seen(vectors, 0);
  const std::uint64_t tiles = stream_full_tiles(vectors, threads, unroll);
  for (std::uint64_t tid = 0; tid < threads; ++tid) {
    for (std::uint64_t t = 0; t < tiles; ++t) {
      for (unsigned u = 0; u < unroll; ++u) ++seen.at(stream_tile_index(t, u, tid, threads, unroll));
    }
    for (std::uint64_t v = stream_tail_start(vectors, threads, unroll) + tid; v < vectors; v += threads)
      ++seen.at(v);
  }
  return seen;
}

TEST(StreamTiling, EveryVectorExactlyOnce) {
  for (std::uint64_t vectors : {0ULL, 1ULL, 7ULL, 1024ULL, 1025ULL, 4096ULL + 333ULL, 100000ULL}) {
    for (std::uint64_t threads : {1ULL, 32ULL, 256ULL, 1000ULL}) {
      for (unsigned unroll : {1u, kStreamUnroll, 8u}) {
        const auto seen = visits(vectors, threads, unroll);
        for (std::uint64_t v = 0; v < vectors; ++v) {
          ASSERT_EQ(seen[v], 1) << "vector " << v << " of " << vectors << ", " << threads
                                << " threads, unroll " << unroll;
        }
      }
    }
  }
}

TEST(StreamTiling, UnrolledLoadsAreCoalescedAndIndependent) {
  const std::uint64_t threads = 256;
  for (unsigned u = 0; u < kStreamUnroll; ++u) {
    for (std::uint64_t tid = 1; tid < threads; ++tid) {
      EXPECT_EQ(stream_tile_index(3, u, tid, threads, kStreamUnroll),
                stream_tile_index(3, u, tid - 1, threads, kStreamUnroll) + 1);
    }
  }
  // One thread's slots in a tile are distinct vectors, a grid's width apart.
  EXPECT_EQ(
      stream_tile_index(0, 1, 5, threads, kStreamUnroll) - stream_tile_index(0, 0, 5, threads, kStreamUnroll),
      threads);
  EXPECT_GE(kStreamUnroll, 4u);  // >= 64 bytes of loads in flight per thread (Little's law, header)
}

TEST(StreamTiling, FullTilesAndTail) {
  EXPECT_EQ(stream_full_tiles(1000, 100, 4), 2u);
  EXPECT_EQ(stream_tail_start(1000, 100, 4), 800u);
  EXPECT_EQ(stream_full_tiles(399, 100, 4), 0u);
  EXPECT_EQ(stream_tail_start(399, 100, 4), 0u);
}

}  // namespace
}  // namespace gpuqual::kernels
