#include "device/nccl/parallel_launch.hpp"

#include <thread>

namespace gpuqual {

std::vector<int> launch_on_own_threads(std::size_t n, const std::function<int(std::size_t)>& launch,
                                       int exception_result) {
  std::vector<int> results(n, 0);
  const auto one = [&](std::size_t k) {
    try {
      results[k] = launch(k);
    } catch (...) {
      results[k] = exception_result;
    }
  };
  if (n == 1) {
    one(0);
    return results;
  }
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (std::size_t k = 0; k < n; ++k) threads.emplace_back(one, k);
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace gpuqual
