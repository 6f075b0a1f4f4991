#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gpuqual {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}
}  // namespace

void write_file_atomic(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::create_directories(dir, ec);  // a missing results/ directory is created, not an error
  // fmt::format, not `"." + name + ...`: GCC 12 at -O3 reports a false -Wrestrict inside
  // std::operator+(const char*, std::string&&), a known GCC 12 false positive.
  std::string tmpl = (dir / fmt::format(".{}.tmp.XXXXXX", target.filename().string())).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail("cannot create temp file", path, errno);
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      fail("write failed", path, err);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    fail("fsync/close failed", path, err);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    fail("rename failed", path, err);
  }
  // Persist the rename itself; failure here is not fatal for correctness of the content.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace gpuqual
