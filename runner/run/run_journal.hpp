#pragma once
// The record on disk while a run is in progress. It is written before the first check with
// every planned check as `error` "run interrupted before this check ran", and rewritten
// atomically (core/record/record_io write_record: temp file, fsync, rename) when a check starts and
// when it ends. So whatever kills the run — SIGKILL, OOM killer, node reboot — the file on disk
// is a valid record of what finished, and `complete` stays false until the run has ended.
#include <string>

#include "core/record/record.hpp"

namespace gpuqual {

inline constexpr const char* kNotRunReason = "run interrupted before this check ran";
inline constexpr const char* kRunningReason = "run interrupted while this check was running";

class RunJournal {
 public:
  // `record` holds the planned checks by name; their status is set to pending here. With
  // `final_only` (the output is a device, a FIFO or stdout, which cannot be replaced) only
  // close() writes: a pipe reader gets one record, not one per check.
  RunJournal(std::string path, RunRecord record, bool final_only = false);

  // Throws std::runtime_error when the first write fails (the run cannot keep its promise).
  void open();
  void begin(std::size_t index, const std::string& started_at);
  void finish(std::size_t index, CheckResult result);
  // Every check that has not finished keeps status error with this reason ("run interrupted
  // (SIGTERM) before this check ran", "not run: the run's --timeout ... was reached").
  void set_pending_reason(const std::string& reason);
  void close(bool complete, const std::string& ended_at);

  const RunRecord& record() const { return record_; }
  const std::string& path() const { return path_; }
  bool finished(std::size_t index) const { return done_.at(index); }
  // The last write's error, "" when it succeeded. Writes after open() never throw: a full disk
  // mid-run is reported, the run goes on, and the next write tries again.
  const std::string& last_error() const { return last_error_; }

 private:
  bool write(bool final = false);
  std::string path_;
  bool final_only_ = false;
  RunRecord record_;
  std::vector<bool> done_;
  std::string last_error_;
};

}  // namespace gpuqual
