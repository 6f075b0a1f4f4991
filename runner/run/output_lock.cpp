#include "runner/run/output_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/base/input_error.hpp"

namespace gpuqual {

namespace {

std::string lock_path_for(const std::string& record) {
  const std::filesystem::path p(record);
  return (p.parent_path() / ("." + p.filename().string() + ".lock")).string();
}

std::string read_holder(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

OutputLock::OutputLock(const std::string& path) : lock_path_(lock_path_for(path)) {
  // The holder unlinks the lock file when it ends; a run that opened the old file just before
  // that would lock an unlinked inode, so after locking, the path must still name our file.
  for (int attempt = 0; attempt < 100; ++attempt) {
    fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw InputError(path, "",
                       fmt::format("cannot create the lock file {}: {}", lock_path_, std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = read_holder(fd_);
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK) {
        throw InputError(
            path, "",
            fmt::format("another gpuqual run{} is writing this record; wait for it to end or choose "
                        "another --output",
                        holder.empty() ? "" : " (pid " + holder + ")"));
      }
      throw InputError(path, "", fmt::format("cannot lock {}: {}", lock_path_, std::strerror(err)));
    }
    struct stat held {
    }, named{};
    if (::fstat(fd_, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      const std::string pid = fmt::format("{}\n", ::getpid());
      if (::ftruncate(fd_, 0) == 0) {
        [[maybe_unused]] const ssize_t w = ::pwrite(fd_, pid.data(), pid.size(), 0);
      }
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw InputError(path, "", fmt::format("cannot lock {}: it keeps being replaced", lock_path_));
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // while still holding the lock (see the constructor)
  ::close(fd_);
}

}  // namespace gpuqual
