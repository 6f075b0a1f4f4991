#pragma once
// Per-element arithmetic of the HBM (STREAM-style) kernels, shared by the kernels, the device
// verifier and the host replay (BabelStream's check: replay the arithmetic on scalars).
//
// Inputs are seeded random doubles in [1, 2) that are multiples of 2^-20: every partial sum of
// up to 2^32 of them is exact in double (2^33 / 2^-20 = 2^53), so the read-only kernel's sum has
// one right answer whatever the order of summation. The other kernels use one IEEE operation
// per element (a multiply, an add, or an explicit fma), which CUDA and the host both round
// correctly, so their answers are bit-exact too: the check compares with ==.
#include <cstdint>

#include "kernels/hd.cuh"
#include "kernels/seeded_hash.cuh"

#include <cmath>

namespace gpuqual::kernels {

enum class StreamKernel : int { copy = 0, scale, add, triad, read, write };

// Arrays: 0 = a, 1 = b (the inputs). The output d is computed, never generated.
GPUQUAL_HD inline double stream_init_value(std::uint64_t seed, std::uint32_t array, std::uint64_t i) {
  const std::uint64_t h = seeded_hash(seed, 0x68626d00ULL + array, i);
  return 1.0 + static_cast<double>(h >> 44) * (1.0 / 1048576.0);  // 20 random bits, [1, 2)
}

GPUQUAL_HD inline double stream_fma(double x, double y, double z) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(x, y, z);  // never contracted or reassociated
#else
  return std::fma(x, y, z);
#endif
}

GPUQUAL_HD inline double stream_scale(double a, double s) { return s * a; }
GPUQUAL_HD inline double stream_add(double a, double b) { return a + b; }
GPUQUAL_HD inline double stream_triad(double a, double b, double s) { return stream_fma(s, b, a); }
// The write-only kernel's value for element i: an affine pattern (one fma), so writing stays
// bandwidth-bound while every element still differs.
GPUQUAL_HD inline double stream_write_value(std::uint64_t i, double w0, double w1) {
  return stream_fma(static_cast<double>(i), w1, w0);
}

struct StreamScalars {
  double s = 0.4;   // scale/triad factor (BabelStream's 0.4)
  double w0 = 1.0;  // write pattern offset
  double w1 = 0.0;  // write pattern slope
};

// What d[i] must hold after kernel `k` ran on inputs a[i], b[i]; `ok` is false for `read`, which
// writes no d.
GPUQUAL_HD inline double stream_expected_output(StreamKernel k, double a, double b, std::uint64_t i,
                                                StreamScalars sc, bool* ok) {
  *ok = true;
  switch (k) {
    case StreamKernel::copy:
      return a;
    case StreamKernel::scale:
      return stream_scale(a, sc.s);
    case StreamKernel::add:
      return stream_add(a, b);
    case StreamKernel::triad:
      return stream_triad(a, b, sc.s);
    case StreamKernel::write:
      return stream_write_value(i, sc.w0, sc.w1);
    case StreamKernel::read:
      break;
  }
  *ok = false;
  return 0.0;
}

// Bytes each kernel moves per element (8-byte doubles), counting reads plus writes.
GPUQUAL_HD inline int stream_bytes_per_element(StreamKernel k) {
  switch (k) {
    case StreamKernel::copy:
      return 16;  // read a, write d
    case StreamKernel::scale:
      return 16;  // read a, write d
    case StreamKernel::add:
      return 24;  // read a, b, write d
    case StreamKernel::triad:
      return 24;  // read a, b, write d
    case StreamKernel::read:
      return 8;  // read a
    case StreamKernel::write:
      return 8;  // write d
  }
  return 0;
}

}  // namespace gpuqual::kernels
