#pragma once
// The I/O sequence of the storage check on one directory, in the calling process: resolve the
// path, read its mount (type, options, read-only), free space against the minimum, write a seeded
// pattern file (O_DIRECT where the filesystem allows it), fsync, an fsync latency series, read it
// back and verify every byte, remove it. It stops at the first problem and says which.
//
// This blocks for as long as the filesystem does (a dead NFS server blocks it for ever): callers
// run it in a worker process they can kill (probes/storage/storage_worker.hpp), never in the check itself.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "probes/storage/storage_pattern.hpp"

namespace gpuqual::probes {

struct StoragePathSpec {
  std::string name;                       // metric names: storage.<name>.write_gbps
  std::string path;                       // a directory
  std::uint64_t size_bytes = 1ull << 30;  // the test file (default 1 GiB: docs/storage-network.md)
  std::uint64_t min_free_bytes = 0;       // free space required beyond the test file
  int fsync_samples = 20;
  bool writable = true;    // false: a read-only mount is expected (only mount + free space)
  bool direct = true;      // try O_DIRECT first (false: buffered from the start)
  double timeout_s = 120;  // the whole sequence on this path, enforced by the worker
  std::uint64_t seed = 0;  // 0: chosen per run
};

// The finding kinds (storage.<kind>); none = the sequence completed.
enum class StorageProblem { none, missing, permission, read_only, no_space, io_error, corrupt };
std::string_view to_string(StorageProblem p);
// errno → kind: ENOENT/ENOTDIR missing, EACCES/EPERM permission, EROFS read_only,
// ENOSPC/EDQUOT no_space, anything else io_error.
StorageProblem problem_for_errno(int err);

struct StorageReport {
  std::string canonical_path;
  std::string mount_point, fs_type, source, mount_options;
  bool read_only = false;
  std::uint64_t free_bytes = 0, total_bytes = 0;
  std::string io_mode;  // "direct", or "buffered: <why>"
  std::string file;     // the test file, once created
  bool file_removed = false;
  std::uint64_t bytes = 0;  // written and read back
  double write_s = 0;       // the writes plus the fsync that made them durable
  double read_s = 0;        // the reads (verification not counted)
  std::vector<double> fsync_ms;
  PatternMismatch mismatch;
  std::vector<std::string> swept;  // stale test files of dead runs removed first
  StorageProblem problem = StorageProblem::none;
  std::string detail;  // what happened, naming the path
};

// `on_stage(stage, file)`: called as each stage starts (resolve, mount, statvfs, sweep, create,
// write, fsync, read, remove), so the caller can name the stage that hangs.
using StageSink = std::function<void(const std::string& stage, const std::string& file)>;

StorageReport run_storage_io(const StoragePathSpec& spec, const StageSink& on_stage);

}  // namespace gpuqual::probes
