#pragma once
// The `storage` check: for each configured directory (node scratch, a PVC mount, a shared
// filesystem) the mount's type and options, free space against a minimum, and a seeded pattern
// file written (O_DIRECT where allowed), fsynced, timed fsyncs, read back and verified byte by
// byte, then removed. Each path runs in a killable worker with its own deadline.
//
//   site_file: /etc/gpuqual/site/site.yaml   # its `storage:` section is laid over these
//   size_mib: 1024          # test file per path (default 1 GiB)
//   min_free_gib: 0         # free space required beyond the test file
//   fsync_samples: 20
//   direct: true            # try O_DIRECT first
//   timeout_s: 60           # per path, the whole sequence
//   total_timeout_s: 100    # all paths; keep it under the suite entry's timeout_s (the watchdog)
//   paths:
//     - {name: scratch, path: /scratch, size_mib: 256, min_free_gib: 100}
//     - {name: datasets, path: /datasets, writable: false}
//
// Findings (fail): storage.missing, .permission, .read_only, .no_space, .io_error, .corrupt.
// A path that hangs → error naming the path and the stage. No path configured → skip with
// reason code not_configured (docs/storage-network.md says why that is not applicable).
#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/record/record.hpp"
#include "probes/storage/storage_io.hpp"

namespace gpuqual::probes {

struct StorageConfig {
  std::vector<StoragePathSpec> paths;
  double total_timeout_s = 100;  // paths not started by then are errors "not run"
  std::string site_file;         // "" when none named
  bool site_file_present = false;
};

// Throws InputError naming the file (suite or site file) and the field.
StorageConfig parse_storage_params(const nlohmann::json& params, const std::string& origin);

CheckResult run_storage(const StorageConfig& config, const std::atomic<bool>* stop);

// After the check was killed: removes this host's test files of dead processes in every
// configured path, each in a bounded helper. Never throws.
std::vector<std::string> storage_after_abort(const nlohmann::json& params);

}  // namespace gpuqual::probes
