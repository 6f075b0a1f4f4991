#pragma once
// Peer copies between GPU pairs (cudaMemcpyPeerAsync): one direction, and both at once. Peer
// access is enabled where the GPUs allow it and its state recorded per ordered pair; without it
// CUDA stages the copy through host memory, which the record says next to the figure.
// Each copy carries a pattern seeded by its source GPU and is checked on the destination.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/cuda/device_buffer.hpp"
#include "device/cuda/event.hpp"
#include "device/cuda/stream.hpp"
#include "device/measure/measure.hpp"
#include "device/pcie/pcie_plan.hpp"
#include "device/pcie/pcie_runner.hpp"

namespace gpuqual {

struct P2pConfig {
  std::uint64_t bytes = kPcieMinBytes;
  std::uint64_t seed = 1;
  MeasureConfig measure;
};

struct PeerAccess {
  int from = 0, to = 0;
  bool can_access = false;  // cudaDeviceCanAccessPeer
  bool enabled = false;     // cudaDeviceEnablePeerAccess succeeded (or was already on)
  std::string note;         // the error when enabling failed
};

// One GPU's side of the peer copies: a source with its pattern, a destination, a stream.
class P2pEndpoint {
 public:
  P2pEndpoint(int gpu, const P2pConfig& config);  // sets the device itself
  int gpu() const { return gpu_; }

 private:
  friend CopyResult run_p2p_pair(P2pEndpoint&, P2pEndpoint&, bool, const P2pConfig&, const MeasureHooks&,
                                 const std::function<void(std::uint64_t*, std::uint64_t)>&);
  int gpu_;
  std::uint64_t words_;
  std::uint64_t seed_;
  Stream stream_;
  Event fork_{cudaEventDisableTiming}, join_{cudaEventDisableTiming};
  DeviceBuffer src_, dst_, counters_;
};

// Asks CUDA for every ordered pair and enables access where possible.
std::vector<PeerAccess> enable_peer_access(const std::vector<int>& gpus);

// from -> to (and to -> from at the same time when `bidirectional`), timed on from's stream.
// `corrupt(dst_words, words)` (tests) damages `to`'s destination before verification.
CopyResult run_p2p_pair(P2pEndpoint& from, P2pEndpoint& to, bool bidirectional, const P2pConfig& config,
                        const MeasureHooks& hooks,
                        const std::function<void(std::uint64_t*, std::uint64_t)>& corrupt = {});

}  // namespace gpuqual
