#include "core/judge/gate_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>

#include <sys/stat.h>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_reader.hpp"
#include "core/record/record_workers.hpp"
#include "core/verdict/record_history.hpp"

namespace gpuqual {

namespace fs = std::filesystem;

namespace {

// Why the `*.json` entry `path` of a directory cannot be a record file: a dangling or looping
// symbolic link, a folder, a FIFO (reading one would wait for a writer), a socket or a device.
// "" for a regular file, after links. Such an entry is never skipped: the directory promised a
// record there (docs/gate.md, "Directories").
std::string not_a_record_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat link {};
    const bool is_link = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
    std::error_code ec;
    const std::string target = is_link ? fs::read_symlink(path, ec).string() : "";
    if (is_link && err == ENOENT) return fmt::format("a dangling symbolic link (to {})", target);
    if (is_link && err == ELOOP) return "a symbolic link loop";
    return fmt::format("cannot be read: {}", std::strerror(err));
  }
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "a device file";
}

}  // namespace

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
      if (entry.path().extension() != ".json") continue;
      const std::string path = entry.path().string();
      if (const std::string why = not_a_record_file(path); !why.empty()) {
        throw InputError(path, "",
                         fmt::format("{}, not a record file: a *.json entry of the directory {} is a record; "
                                     "remove it or give the records by name",
                                     why, a));
      }
      inside.push_back(path);
    }
    if (ec) throw InputError(a, "", fmt::format("cannot list the directory: {}", ec.message()));
    std::sort(inside.begin(), inside.end());
    out.insert(out.end(), inside.begin(), inside.end());
  }
  return out;
}

namespace {

// One file named twice (the same path, a directory and a file in it, a link): exit 3, before
// anything is read. Files are told apart by device and inode, as the kernel does.
void refuse_same_file_twice(const std::vector<std::string>& paths) {
  std::map<std::pair<dev_t, ino_t>, std::size_t> seen;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    struct stat st {};
    if (::stat(paths[i].c_str(), &st) != 0) continue;  // the reader reports it
    auto [it, fresh] = seen.emplace(std::make_pair(st.st_dev, st.st_ino), i);
    if (!fresh) {
      throw InputError(
          paths[i], "",
          fmt::format("the same file as {}: a record given twice would count twice", paths[it->second]));
    }
  }
}

// The same run in two files (a copy, an interrupted snapshot beside the final record) is one run
// (docs/gate.md): identical contents are the same record given twice (exit 3); otherwise the
// complete record counts, then the worse verdict, then the later argument. Returns the notes.
std::vector<std::string> one_run_per_run_id(const std::vector<std::string>& paths,
                                            std::vector<std::optional<NodeSummary>>& summaries) {
  std::unordered_map<std::string, std::size_t> by_run;
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    if (!summaries[i] || summaries[i]->unreadable || summaries[i]->verdict.run_id.empty()) continue;
    auto [it, fresh] = by_run.emplace(summaries[i]->verdict.run_id, i);
    if (fresh) continue;
    const std::size_t first = it->second;
    if (read_text_file(paths[first], JsonLimits{}.max_bytes) ==
        read_text_file(paths[i], JsonLimits{}.max_bytes)) {
      throw InputError(paths[i], "",
                       fmt::format("the same record as {} (identical contents): given twice", paths[first]));
    }
    const NodeSummary& a = *summaries[first];
    const NodeSummary& b = *summaries[i];
    const bool later_wins = a.complete != b.complete ? b.complete
                            : a.verdict.outcome != b.verdict.outcome
                                ? worse_outcome(b.verdict.outcome, a.verdict.outcome)
                                : true;
    const std::size_t winner = later_wins ? i : first, loser = later_wins ? first : i;
    const char* why = a.complete != b.complete                 ? "the complete one counts"
                      : a.verdict.outcome != b.verdict.outcome ? "both as complete: the worse verdict counts"
                                                               : "the later argument counts";
    notes.push_back(fmt::format("run {} is in two files, {} and {}: one run, {}: {}", a.verdict.run_id,
                                paths[first], paths[i], why, paths[winner]));
    summaries[loser].reset();
    it->second = winner;
  }
  return notes;
}

// Records of a gpuqual before node.kernel was `uname -r` alone are read as the release
// (core/record/kernel_release.hpp); the verdict says so once, as the change is the user's to know.
std::optional<std::string> old_kernel_note(const std::vector<std::string>& paths,
                                           const std::vector<char>& old) {
  const auto first = std::find(old.begin(), old.end(), 1);
  if (first == old.end()) return std::nullopt;
  return fmt::format(
      "{} record(s) of an older gpuqual state the kernel as \"<release> (<arch>)\" (first: {}): read as the "
      "release alone, `uname -r` as Kubernetes' nodeInfo.kernelVersion shows it (docs/inventory.md, "
      "\"Kernel\")",
      std::count(old.begin(), old.end(), 1), paths[static_cast<std::size_t>(first - old.begin())]);
}

}  // namespace

Verdict gate_records(const std::vector<std::string>& paths, BaselineSource& baselines,
                     const GateOptions& options, unsigned jobs) {
  const std::size_t n = paths.size();
  refuse_same_file_twice(paths);
  std::vector<std::optional<NodeSummary>> summaries(n);
  std::vector<const Baseline*> used(n, nullptr);
  std::vector<std::exception_ptr> unreadable(n);  // rethrown only when not one record could be read
  std::atomic<std::size_t> readable{0};
  std::vector<char> old_kernel(n, 0);  // the record states its kernel as "<release> (<arch>)"

  // A bad baseline, or the harness itself, stops the gate (for_each_record rethrows it).
  for_each_record(n, jobs, [&](std::size_t i, StreamingRecordReader& reader) {
    RunRecord record;
    try {
      record = reader.read(paths[i]);
    } catch (const InputError& e) {
      // One node's bad file must not stop a fleet gate: the node is `error`, the rest are
      // judged, with the problem as `compare` reports it (the reader locates syntax errors).
      unreadable[i] = std::current_exception();
      summaries[i] = unreadable_node(paths[i], e.what(), i);
      return;
    }
    ++readable;
    old_kernel[i] = !record.node.kernel_as_written.empty();
    const Baseline* b = baselines.for_class(record.hardware_class.slug);
    GateOptions node_options = options;
    node_options.unit_baselines = &baselines;  // a MIG node's slices and compute instances, likewise
    summaries[i] = summarize_node(record, b, node_options, paths[i], i);
    used[i] = b;
  });
  if (n > 0 && readable == 0) std::rethrow_exception(unreadable.front());

  const std::vector<std::string> same_runs = one_run_per_run_id(paths, summaries);
  GatePool pool(options);
  pool.reserve(n);
  for (const auto& note : same_runs) pool.note(note);
  if (auto note = old_kernel_note(paths, old_kernel)) pool.note(*note);
  for (std::size_t i = 0; i < n; ++i) {
    if (summaries[i]) pool.add(std::move(*summaries[i]), used[i]);
  }
  // The moved-from slots still hold ~0.8 KB a record: free them before the pool's verdict is
  // built beside its nodes (the peak; docs/performance.md, "Gate over 100,000 nodes").
  std::vector<std::optional<NodeSummary>>().swap(summaries);
  return pool.finish();
}

}  // namespace gpuqual
