#include "device/pcie/p2p_runner.hpp"

#include <sstream>

#include "device/cuda/device_guard.hpp"
#include "device/measure/measure_timers.hpp"
#include "kernels/copy_pattern_kernels.cuh"

namespace gpuqual {

namespace {

std::uint64_t peer_seed(std::uint64_t seed, int gpu) {
  return seed * 7919ULL + 0x7032700ULL + static_cast<std::uint64_t>(gpu);
}

// Events and streams belong to the device current at creation: set it before the members exist.
int enter(int gpu) {
  CUDA_CHECK(cudaSetDevice(gpu));
  return gpu;
}

std::uint64_t verify_on(int gpu, const DeviceBuffer& dst, const DeviceBuffer& counters, std::uint64_t words,
                        std::uint64_t seed, cudaStream_t stream, int from, std::string* problem) {
  DeviceGuard guard(gpu);
  const unsigned long long init[2] = {0, ~0ULL};
  unsigned long long got[2] = {0, 0};
  CUDA_CHECK(cudaMemcpyAsync(counters.get(), init, sizeof init, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(kernels::launch_pattern_verify(dst.as<std::uint64_t>(), words, seed,
                                            counters.as<unsigned long long>(), stream));
  CUDA_CHECK(cudaMemcpyAsync(got, counters.get(), sizeof got, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (got[0]) {
    std::ostringstream w;
    w << "gpu " << from << " -> gpu " << gpu << ": " << got[0] << " of " << words
      << " words wrong (first at word " << got[1] << ")";
    *problem += (problem->empty() ? "" : "; ") + w.str();
  }
  return got[0];
}

}  // namespace

P2pEndpoint::P2pEndpoint(int gpu, const P2pConfig& config)
    : gpu_(enter(gpu)), words_(config.bytes / sizeof(std::uint64_t)), seed_(peer_seed(config.seed, gpu)) {
  const std::size_t bytes = words_ * sizeof(std::uint64_t);
  src_ = DeviceBuffer(bytes);
  dst_ = DeviceBuffer(bytes);
  counters_ = DeviceBuffer(2 * sizeof(unsigned long long));
  CUDA_CHECK(kernels::launch_pattern_fill(src_.as<std::uint64_t>(), words_, seed_, stream_));
  stream_.synchronize();
}

std::vector<PeerAccess> enable_peer_access(const std::vector<int>& gpus) {
  std::vector<PeerAccess> out;
  for (auto [from, to] : ordered_pairs(gpus)) {
    PeerAccess a;
    a.from = from;
    a.to = to;
    int can = 0;
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
    a.can_access = can != 0;
    if (a.can_access) {
      DeviceGuard guard(from);
      const cudaError_t st = cudaDeviceEnablePeerAccess(to, 0);
      if (st == cudaSuccess || st == cudaErrorPeerAccessAlreadyEnabled) {
        a.enabled = true;
      } else {
        a.note = CudaError::describe(st);
      }
      (void)cudaGetLastError();  // an "already enabled" status is sticky until read
    } else {
      a.note = "cudaDeviceCanAccessPeer = 0: copies are staged through host memory";
    }
    out.push_back(a);
  }
  return out;
}

CopyResult run_p2p_pair(P2pEndpoint& from, P2pEndpoint& to, bool bidirectional, const P2pConfig& config,
                        const MeasureHooks& hooks,
                        const std::function<void(std::uint64_t*, std::uint64_t)>& corrupt) {
  const std::size_t bytes = from.words_ * sizeof(std::uint64_t);
  {
    DeviceGuard g(to.gpu_);
    CUDA_CHECK(cudaMemsetAsync(to.dst_.get(), 0, bytes, to.stream_));
    to.stream_.synchronize();
  }
  DeviceGuard guard(from.gpu_);
  CUDA_CHECK(cudaMemsetAsync(from.dst_.get(), 0, bytes, from.stream_));
  from.stream_.synchronize();

  CudaEventTimer timer(from.stream_, [&] {
    if (!bidirectional) {
      CUDA_CHECK(
          cudaMemcpyPeerAsync(to.dst_.get(), to.gpu_, from.src_.get(), from.gpu_, bytes, from.stream_));
      return;
    }
    from.fork_.record(from.stream_);
    CUDA_CHECK(cudaStreamWaitEvent(to.stream_, from.fork_.get(), 0));
    CUDA_CHECK(cudaMemcpyPeerAsync(to.dst_.get(), to.gpu_, from.src_.get(), from.gpu_, bytes, from.stream_));
    CUDA_CHECK(cudaMemcpyPeerAsync(from.dst_.get(), from.gpu_, to.src_.get(), to.gpu_, bytes, to.stream_));
    to.join_.record(to.stream_);
    CUDA_CHECK(cudaStreamWaitEvent(from.stream_, to.join_.get(), 0));
  });
  CopyResult r;
  r.direction = bidirectional ? CopyDirection::bidir : CopyDirection::h2d;  // direction is informational here
  r.bytes_per_op = static_cast<double>(bytes) * (bidirectional ? 2.0 : 1.0);
  r.measure = measure(timer, config.measure, hooks);
  from.stream_.synchronize();
  to.stream_.synchronize();
  if (corrupt) {
    DeviceGuard g(to.gpu_);
    corrupt(to.dst_.as<std::uint64_t>(), to.words_);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  r.mismatches =
      verify_on(to.gpu_, to.dst_, to.counters_, to.words_, from.seed_, to.stream_, from.gpu_, &r.problem);
  if (bidirectional) {
    r.mismatches += verify_on(from.gpu_, from.dst_, from.counters_, from.words_, to.seed_, from.stream_,
                              to.gpu_, &r.problem);
  }
  return r;
}

}  // namespace gpuqual
