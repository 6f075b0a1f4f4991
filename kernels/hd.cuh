#pragma once
// GPUQUAL_HD marks per-thread logic that runs both in kernels and in CPU tests (docs/architecture.md,
// "Testing without a GPU"): under nvcc it is __host__ __device__, under g++ it is nothing, so
// a host .cpp can include these headers and call the very functions the kernels call.
#if defined(__CUDACC__)
#define GPUQUAL_HD __host__ __device__
#else
#define GPUQUAL_HD
#endif
