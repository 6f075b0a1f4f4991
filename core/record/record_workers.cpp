#include "core/record/record_workers.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuqual {

void for_each_record(std::size_t n, unsigned jobs,
                     const std::function<void(std::size_t, StreamingRecordReader&)>& work) {
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::size_t error_index = n;
  std::exception_ptr error;
  auto loop = [&] {
    StreamingRecordReader reader;
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        work(i, reader);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (i < error_index) {
          error_index = i;
          error = std::current_exception();
        }
        stop = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(loop);
  loop();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gpuqual
