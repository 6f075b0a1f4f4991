#include "core/gate_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "core/gate_record_reader.hpp"
#include "core/input_error.hpp"
#include "core/record_io.hpp"

namespace gpuqual {

namespace fs = std::filesystem;

std::vector<std::string> expand_record_paths(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::error_code ec;
    const auto st = fs::status(a, ec);
    if (ec || !fs::exists(st)) throw InputError(a, "", "no such file or directory");
    if (!fs::is_directory(st)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> inside;
    for (const auto& entry : fs::directory_iterator(a, ec)) {
      if (entry.path().extension() == ".json" && entry.is_regular_file()) inside.push_back(entry.path().string());
    }
    if (ec) throw InputError(a, "", fmt::format("cannot list the directory: {}", ec.message()));
    std::sort(inside.begin(), inside.end());
    out.insert(out.end(), inside.begin(), inside.end());
  }
  return out;
}

Verdict gate_records(const std::vector<std::string>& paths, BaselineSource& baselines, const GateOptions& options,
                     unsigned jobs) {
  const std::size_t n = paths.size();
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(n, 1)));

  std::vector<std::optional<NodeSummary>> summaries(n);
  std::vector<const Baseline*> used(n, nullptr);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::size_t error_index = n;
  std::exception_ptr error;
  std::atomic<std::size_t> readable{0};
  std::exception_ptr first_unreadable;  // rethrown only when not one record could be read
  std::size_t first_unreadable_index = n;

  // Indices are claimed in order, so when record i fails every record before it was already
  // claimed and finishes: the smallest failing index is the same on every run.
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
        } catch (const InputError& fast) {
          // One node's bad file must not stop a fleet gate: the node is `error`, the rest are
          // judged. The strict reader says where (line and column), as `compare` reports it.
          std::exception_ptr why = std::current_exception();
          std::string problem = fast.what();
          try {
            (void)read_record(paths[i]);
          } catch (const InputError& strict) {
            problem = strict.what();
            why = std::current_exception();
          }
          summaries[i] = unreadable_node(paths[i], problem, i);
          std::lock_guard<std::mutex> lock(error_mutex);
          if (i < first_unreadable_index) {
            first_unreadable_index = i;
            first_unreadable = why;
          }
          continue;
        }
        ++readable;
        const Baseline* b = baselines.for_class(record.hardware_class.slug);
        summaries[i] = summarize_node(record, b, options, paths[i], i);
        used[i] = b;
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
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);  // a bad baseline, or the harness itself
  if (n > 0 && readable == 0) std::rethrow_exception(first_unreadable);

  GatePool pool(options);
  for (std::size_t i = 0; i < n; ++i) {
    pool.add(std::move(*summaries[i]), used[i]);
    summaries[i].reset();
  }
  return pool.finish();
}

}  // namespace gpuqual
