#pragma once
// PcieTraffic: keeps host<->device copies running on the given GPUs (one host thread each)
// until stopped, so the health check reads the PCIe link while it carries traffic. Links train
// down to a lower generation when idle; a link reading taken idle proves nothing.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gpuqual {

class PcieTraffic {
 public:
  PcieTraffic() = default;
  ~PcieTraffic();  // stops; never throws
  PcieTraffic(const PcieTraffic&) = delete;
  PcieTraffic& operator=(const PcieTraffic&) = delete;

  // Starts a copy loop on each CUDA device in `gpus` (64 MiB pinned ↔ device, both directions).
  void start(const std::vector<int>& gpus, std::size_t bytes = 64u << 20);
  // Stops every loop. GPUs whose loop ran copies are in loaded(); the others in failures().
  void stop();

  // True once every worker has completed a copy or stopped on an error: from then on every
  // link that can carry traffic does (the health check starts sampling here).
  bool all_copied() const;
  // GPUs that completed at least one copy (evidence the link carried traffic).
  std::vector<int> loaded() const;
  // GPU → why no copy ran (the CUDA error).
  std::map<int, std::string> failures() const;

 private:
  struct Worker {
    int gpu = 0;
    std::thread thread;
    std::atomic<long long> copies{0};
    std::atomic<bool> failed{false};
    std::string error;
  };
  std::atomic<bool> stop_{false};
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace gpuqual
