#include "core/matrix_stream.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "core/compare.hpp"
#include "core/gate_record_reader.hpp"
#include "core/input_error.hpp"

namespace gpuqual {

MatrixBuildResult build_matrix(const std::vector<std::string>& paths, BaselineSource& baselines, int min_nodes,
                               unsigned jobs) {
  const std::size_t n = paths.size();
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(n, 1)));

  std::vector<std::optional<MatrixObservation>> seen(n);
  std::vector<std::string> problems(n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::size_t error_index = n;
  std::exception_ptr error;
  std::exception_ptr first_unreadable;
  std::size_t first_unreadable_index = n;

  auto work = [&] {
    StreamingRecordReader reader;
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        RunRecord record;
        try {
          record = reader.read(paths[i]);
        } catch (const InputError& e) {
          problems[i] = e.what();
          std::lock_guard<std::mutex> lock(error_mutex);
          if (i < first_unreadable_index) {
            first_unreadable_index = i;
            first_unreadable = std::current_exception();
          }
          continue;
        }
        const Baseline* b = baselines.for_class(record.hardware_class.slug);
        const Verdict v = compare_record(record, b, CompareOptions{});
        seen[i] = observe_record(record, v.outcome);
      } catch (...) {
        // A bad baseline file, or the harness itself: the smallest index wins, as in gate.
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
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);

  MatrixBuildResult out;
  MatrixBuilder builder(min_nodes);
  for (std::size_t i = 0; i < n; ++i) {
    if (seen[i]) {
      builder.add(std::move(*seen[i]));
      seen[i].reset();
    } else {
      builder.add_unreadable();
      out.unreadable.push_back(problems[i]);
    }
  }
  if (n > 0 && out.unreadable.size() == n) std::rethrow_exception(first_unreadable);
  out.matrix = builder.finish();
  return out;
}

}  // namespace gpuqual
