// launch_on_own_threads (device/nccl/parallel_launch.hpp): the captured NCCL graphs of several GPUs
// are launched from one thread per GPU, because a launch may block until its peers are launched.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "device/nccl/parallel_launch.hpp"

namespace gpuqual {
namespace {

TEST(ParallelLaunch, ALaunchThatWaitsForItsPeersDoesNotDeadlock) {
  // Each call blocks until all four have started, as cudaGraphLaunch of a captured NCCL
  // collective can. Launched in turn from one thread, the first would wait forever.
  constexpr std::size_t n = 4;
  std::mutex mu;
  std::condition_variable cv;
  std::size_t started = 0;
  const auto results = launch_on_own_threads(n, [&](std::size_t k) {
    std::unique_lock<std::mutex> lock(mu);
    ++started;
    cv.notify_all();
    // Bounded only so that a broken launcher fails the test instead of hanging it.
    const bool all = cv.wait_for(lock, std::chrono::seconds(30), [&] { return started == n; });
    return all ? static_cast<int>(k) : 99;
  });
  EXPECT_EQ(results, (std::vector<int>{0, 1, 2, 3}));
}

TEST(ParallelLaunch, EachCallHasItsOwnThreadAndOneRunsInline) {
  std::mutex mu;
  std::set<std::thread::id> ids;
  (void)launch_on_own_threads(3, [&](std::size_t) {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
    return 0;
  });
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u);
  std::thread::id inline_id;
  (void)launch_on_own_threads(1, [&](std::size_t) {
    inline_id = std::this_thread::get_id();
    return 0;
  });
  EXPECT_EQ(inline_id, std::this_thread::get_id());
}

TEST(ParallelLaunch, AThrowingCallIsItsGpusErrorOnly) {
  const auto results = launch_on_own_threads(
      3,
      [](std::size_t k) -> int {
        if (k == 1) throw std::runtime_error("launch failed");
        return 0;
      },
      -7);
  EXPECT_EQ(results, (std::vector<int>{0, -7, 0}));
}

}  // namespace
}  // namespace gpuqual
