#pragma once
// Which 16-byte vectors each thread of the HBM kernels touches. Little's law: H200's 4.8 TB/s at
// ~0.6-0.7 us of memory latency needs ~25-29 KB in flight per SM; one double2 load per thread
// in one wave of blocks keeps ~32 KB in flight only when every load is outstanding at once, and
// a loop that loads, stores, then loads again does not. So each thread issues kStreamUnroll
// independent loads of a tile before any store: tile t, slot u of thread `tid` (of `threads` in
// the grid) is vector (t * unroll + u) * threads + tid, so for each slot consecutive threads read
// consecutive vectors (coalesced). Vectors past the last full tile are done one per thread in a
// grid-stride tail. Every vector is visited exactly once (tests/unit/test_hbm_tiling.cpp).
#include <cstdint>

#include "kernels/hd.cuh"

namespace gpuqual::kernels {

inline constexpr unsigned kStreamUnroll = 4;  // 64 bytes of loads in flight per thread and array

GPUQUAL_HD inline std::uint64_t stream_full_tiles(std::uint64_t vectors, std::uint64_t threads,
                                                  unsigned unroll) {
  return vectors / (threads * unroll);
}

GPUQUAL_HD inline std::uint64_t stream_tile_index(std::uint64_t tile, unsigned slot, std::uint64_t tid,
                                                  std::uint64_t threads, unsigned unroll) {
  return (tile * unroll + slot) * threads + tid;
}

// The first vector of the tail (after the full tiles); the tail is [start, vectors).
GPUQUAL_HD inline std::uint64_t stream_tail_start(std::uint64_t vectors, std::uint64_t threads,
                                                  unsigned unroll) {
  return stream_full_tiles(vectors, threads, unroll) * threads * unroll;
}

}  // namespace gpuqual::kernels
