#include "device/pcie/pcie_traffic.hpp"

#include <cstring>
#include <memory>

#include "device/cuda/device_buffer.hpp"
#include "device/cuda/device_guard.hpp"
#include "device/cuda/pinned_buffer.hpp"
#include "device/cuda/stream.hpp"

namespace gpuqual {

PcieTraffic::~PcieTraffic() { stop(); }

void PcieTraffic::start(const std::vector<int>& gpus, std::size_t bytes) {
  stop();
  stop_ = false;
  for (int gpu : gpus) {
    auto w = std::make_unique<Worker>();
    w->gpu = gpu;
    Worker* raw = w.get();
    raw->thread = std::thread([this, raw, bytes] {
      try {
        DeviceGuard guard(raw->gpu);
        PinnedBuffer host(bytes);
        std::memset(host.get(), 0x5a, bytes);  // not zeros: some links compress nothing, but be honest
        DeviceBuffer dev(bytes);
        Stream stream;
        bool to_device = true;
        while (!stop_.load()) {
          if (to_device) {
            CUDA_CHECK(cudaMemcpyAsync(dev.get(), host.get(), bytes, cudaMemcpyHostToDevice, stream));
          } else {
            CUDA_CHECK(cudaMemcpyAsync(host.get(), dev.get(), bytes, cudaMemcpyDeviceToHost, stream));
          }
          stream.synchronize();
          raw->copies.fetch_add(1);
          to_device = !to_device;
        }
      } catch (const std::exception& e) {
        raw->error = e.what();
        raw->failed.store(true);  // after error: a reader that sees failed may read error
      }
    });
    workers_.push_back(std::move(w));
  }
}

void PcieTraffic::stop() {
  stop_ = true;
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
}

bool PcieTraffic::all_copied() const {
  for (const auto& w : workers_) {
    if (w->copies.load() == 0 && !w->failed.load()) return false;
  }
  return true;
}

std::vector<int> PcieTraffic::loaded() const {
  std::vector<int> out;
  for (const auto& w : workers_) {
    if (w->copies.load() > 0) out.push_back(w->gpu);
  }
  return out;
}

std::map<int, std::string> PcieTraffic::failures() const {
  std::map<int, std::string> out;
  for (const auto& w : workers_) {
    if (w->copies.load() == 0) out[w->gpu] = w->error.empty() ? "no copy completed" : w->error;
  }
  return out;
}

}  // namespace gpuqual
