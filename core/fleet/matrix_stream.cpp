#include "core/fleet/matrix_stream.hpp"

#include <exception>
#include <optional>

#include "core/base/input_error.hpp"
#include "core/judge/compare.hpp"
#include "core/record/record_reader.hpp"
#include "core/record/record_workers.hpp"

namespace gpuqual {

MatrixBuildResult build_matrix(const std::vector<std::string>& paths, BaselineSource& baselines,
                               int min_nodes, unsigned jobs, const std::string& rack_label) {
  const std::size_t n = paths.size();
  std::vector<std::optional<MatrixObservation>> seen(n);
  std::vector<std::string> problems(n);
  std::vector<std::exception_ptr> unreadable(n);

  // A bad baseline file, or the harness itself, stops the build: the smallest index wins, as
  // in gate (for_each_record).
  for_each_record(n, jobs, [&](std::size_t i, StreamingRecordReader& reader) {
    RunRecord record;
    try {
      record = reader.read(paths[i]);
    } catch (const InputError& e) {
      problems[i] = e.what();
      unreadable[i] = std::current_exception();
      return;
    }
    CompareOptions co;
    co.with_stack = false;  // the row's stack is matrix_components(record); only the outcome is used
    // Every unit (MIG slices too) against its class's baseline, as compare judges the record.
    const Verdict v = compare_with_baselines(record, baselines, co);
    seen[i] = observe_record(record, v.outcome, rack_label);
  });

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
  if (n > 0 && out.unreadable.size() == n) std::rethrow_exception(unreadable.front());
  out.matrix = builder.finish();
  return out;
}

}  // namespace gpuqual
