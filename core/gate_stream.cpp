#include "core/gate_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <optional>

#include "core/gate_record_reader.hpp"
#include "core/input_error.hpp"
#include "core/record_io.hpp"
#include "core/record_workers.hpp"

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
  std::vector<std::optional<NodeSummary>> summaries(n);
  std::vector<const Baseline*> used(n, nullptr);
  std::vector<std::exception_ptr> unreadable(n);  // rethrown only when not one record could be read
  std::atomic<std::size_t> readable{0};

  // A bad baseline, or the harness itself, stops the gate (for_each_record rethrows it).
  for_each_record(n, jobs, [&](std::size_t i, StreamingRecordReader& reader) {
    RunRecord record;
    try {
      record = reader.read(paths[i]);
    } catch (const InputError& fast) {
      // One node's bad file must not stop a fleet gate: the node is `error`, the rest are
      // judged. The strict reader says where (line and column), as `compare` reports it.
      unreadable[i] = std::current_exception();
      std::string problem = fast.what();
      try {
        (void)read_record(paths[i]);
      } catch (const InputError& strict) {
        problem = strict.what();
        unreadable[i] = std::current_exception();
      }
      summaries[i] = unreadable_node(paths[i], problem, i);
      return;
    }
    ++readable;
    const Baseline* b = baselines.for_class(record.hardware_class.slug);
    summaries[i] = summarize_node(record, b, options, paths[i], i);
    used[i] = b;
  });
  if (n > 0 && readable == 0) std::rethrow_exception(unreadable.front());

  GatePool pool(options);
  pool.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    pool.add(std::move(*summaries[i]), used[i]);
  }
  // The moved-from slots still hold ~0.8 KB a record: free them before the pool's verdict is
  // built beside its nodes (the peak; docs/performance.md, "Gate over 100,000 nodes").
  std::vector<std::optional<NodeSummary>>().swap(summaries);
  return pool.finish();
}

}  // namespace gpuqual
