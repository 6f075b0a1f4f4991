#pragma once
// Calls that must be made at the same time on several threads. NCCL's documentation ("Using
// NCCL with CUDA Graphs", Requirements and Limitations,
// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/cudagraph.html; docs/nccl.md)
// warns that several GPUs per process with captured graphs can deadlock, most likely when one
// thread launches them: cudaGraphLaunch of one GPU's graph may block, and the other GPUs' graphs
// are then never launched. A launch that may wait for its peers' launches must not wait for them
// on the same thread. Plain C++: the CPU tests hold it to that with calls that block until every
// other call has started.
#include <cstddef>
#include <functional>
#include <vector>

namespace gpuqual {

// Calls launch(k) for every k in [0, n), each on its own thread, all started before any is
// waited for (n == 1: on the calling thread); returns each call's result. An exception thrown
// by a call is its result `exception_result` (the calls are meant to return CUDA status codes).
std::vector<int> launch_on_own_threads(std::size_t n, const std::function<int(std::size_t k)>& launch,
                                       int exception_result = -1);

}  // namespace gpuqual
