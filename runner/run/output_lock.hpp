#pragma once
// One live `gpuqual run` per output record. Two runs writing the same --output would replace
// each other's record between checks (and, before the run judged from memory, judge each
// other's). The lock is flock(2) on `.<record>.lock` next to the record: the kernel drops it
// when its holder dies, so a SIGKILLed run never blocks the next one.
#include <string>

namespace gpuqual {

class OutputLock {
 public:
  // Takes the lock for the record `path` (already resolved: symlinks followed). Throws
  // InputError naming the record and the pid of the live run that holds it.
  explicit OutputLock(const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  const std::string& lock_path() const { return lock_path_; }

 private:
  std::string lock_path_;
  int fd_ = -1;
};

}  // namespace gpuqual
