#include "core/base/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace gpuqual {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", path, what));
}

// The standard-stream aliases: they are symlinks into /proc whose targets ("pipe:[1234]") are
// not paths, so they are never resolved, only opened.
bool is_fd_alias(const std::string& path) {
  return path == "/dev/stdout" || path == "/dev/stderr" || path.rfind("/dev/fd/", 0) == 0 ||
         path.rfind("/proc/self/fd/", 0) == 0;
}

// A dangling symlink names the file to create: follow the chain (relative targets against the
// link's directory) until a path that is not a link. Bounded like the kernel's ELOOP.
std::string follow_dangling_links(std::string path) {
  for (int hop = 0; hop < 40; ++hop) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) refuse(path, "cannot read the symlink: " + ec.message());
    path = target.is_absolute() ? target.string() : (fs::path(path).parent_path() / target).string();
  }
  refuse(path, "too many levels of symlinks");
}

void write_all(int fd, std::string_view content, const std::string& path, const std::string& cleanup) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      if (!cleanup.empty()) {
        ::close(fd);
        ::unlink(cleanup.c_str());
      }
      fail("write failed", path, err);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// The descriptor an alias names: "-" and /dev/stdout 1, /dev/stderr 2, /dev/fd/N and
// /proc/self/fd/N N; -1 for any other path. Written through the descriptor itself: opening the
// alias anew would start at offset 0 of a redirected file and overwrite what is already there.
int alias_fd(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string p(prefix);
    if (path.rfind(p, 0) == 0 && path.size() > p.size() &&
        path.find_first_not_of("0123456789", p.size()) == std::string::npos && path.size() - p.size() < 9) {
      return std::stoi(path.substr(p.size()));
    }
  }
  return -1;
}

void write_stream(const std::string& path, std::string_view content) {
  if (const int fd = alias_fd(path); fd >= 0) {
    std::fflush(fd == STDERR_FILENO ? stderr : stdout);  // what stdio already holds goes first
    write_all(fd, content, path, "");
    return;
  }
  // No O_CREAT: the path exists (resolve_output saw it); no O_TRUNC needed for devices/pipes.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path, errno);
  write_all(fd, content, path, "");
  if (::close(fd) != 0) fail("close failed", path, errno);
}

void replace_file(const std::string& path, std::string_view content) {
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
  write_all(fd, content, path, tmpl);
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

}  // namespace

OutputTarget resolve_output(const std::string& path) {
  if (path.empty()) refuse("\"\"", "an empty output path");
  if (path == "-" || is_fd_alias(path)) return {OutputKind::stream, path};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) fail("cannot inspect", path, errno);
    return {OutputKind::replace, follow_dangling_links(path)};  // a new file (maybe a link's target)
  }
  if (S_ISREG(st.st_mode)) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);  // through symlinks: the link itself stays
    return {OutputKind::replace, ec ? path : real.string()};
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return {OutputKind::stream, path};
  if (S_ISDIR(st.st_mode)) refuse(path, "is a directory");
  if (S_ISBLK(st.st_mode)) refuse(path, "is a block device, not a file");
  refuse(path, "is not a regular file");
}

void write_file_atomic(const std::string& path, std::string_view content) {
  const OutputTarget t = resolve_output(path);
  if (t.kind == OutputKind::stream) {
    write_stream(t.path, content);
  } else {
    replace_file(t.path, content);
  }
}

}  // namespace gpuqual
