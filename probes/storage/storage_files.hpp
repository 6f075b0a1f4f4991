#pragma once
// Names of the storage check's test files, and the sweep of those a killed run left behind.
// A test file is `<dir>/.gpuqual-storage-<host>-<pid>-<n>`: the host part keeps two nodes (or
// two pods: a pod's hostname is its name) that share a filesystem from ever removing each
// other's files; the pid tells a live writer from a dead one on this host.
#include <string>
#include <vector>

namespace gpuqual::probes {

// A fresh test file path in `dir` for this process.
std::string storage_test_file(const std::string& dir);

// Removes every test file of this host in `dir` whose writing process is gone; returns them.
// It touches the filesystem: run it where a hang can be stopped (the storage worker, or
// sweep_stale_storage_files_bounded below).
std::vector<std::string> sweep_stale_storage_files(const std::string& dir);

// The sweep in a forked helper that gets `wait_s` to finish; a mount that does not answer in
// time yields "not swept: <dir> did not answer within N s". Never throws.
std::vector<std::string> sweep_stale_storage_files_bounded(const std::string& dir, double wait_s);

// unlink(`file`) in a forked helper that gets `wait_s`. Returns "" when removed (or already
// gone), else why not. A helper still blocked after `wait_s` is left to finish on its own: the
// file goes as soon as the mount answers again.
std::string remove_file_bounded(const std::string& file, double wait_s);

// In a forked helper: stdin, stdout and stderr onto /dev/null, so that a helper stuck in a hung
// mount does not hold its parent's output pipe open (a pipe reader would wait for it too).
void detach_helper_stdio();

}  // namespace gpuqual::probes
