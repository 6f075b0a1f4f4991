#include "probes/storage/storage_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/base/elapsed.hpp"
#include "probes/storage/mount_info.hpp"
#include "probes/storage/storage_files.hpp"

namespace gpuqual::probes {

namespace {

using Clock = std::chrono::steady_clock;

// 1 MiB chunks, 4 KiB aligned: O_DIRECT needs buffer, offset and length aligned to the logical
// block size (open(2), "O_DIRECT"), which is 512 B or 4 KiB on every current device.
constexpr std::size_t kChunk = 1u << 20;
constexpr std::size_t kAlign = 4096;

struct FreeDeleter {
  void operator()(std::byte* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<std::byte, FreeDeleter>;
AlignedBuffer aligned_buffer(std::size_t n) {
  return AlignedBuffer(static_cast<std::byte*>(std::aligned_alloc(kAlign, n)));
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

bool fail_errno(StorageReport& r, int err, const std::string& what) {
  r.problem = problem_for_errno(err);
  r.detail = fmt::format("{}: {}", what, std::strerror(err));
  return false;
}

// Writes the whole buffer at `offset`; a short write is retried, 0 bytes is ENOSPC (write(2)).
int write_all(int fd, const std::byte* p, std::size_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return ENOSPC;
    p += w;
    n -= static_cast<std::size_t>(w);
    offset += static_cast<std::uint64_t>(w);
  }
  return 0;
}

class Sequence {
 public:
  Sequence(const StoragePathSpec& spec, const StageSink& sink) : spec_(spec), sink_(sink) {}

  StorageReport run() {
    if (resolve() && inspect_mount() && check_space() && spec_.writable && create() && write() &&
        fsync_series() && read_back())
      remove();
    if (!r_.file.empty() && !r_.file_removed) remove();
    return r_;
  }

 private:
  void stage(const std::string& s) {
    if (sink_) sink_(s, r_.file);
  }

  bool resolve() {
    stage("resolve");
    char buf[PATH_MAX];
    if (::realpath(spec_.path.c_str(), buf) == nullptr) return fail_errno(r_, errno, spec_.path);
    r_.canonical_path = buf;
    struct stat st {};
    if (::stat(buf, &st) != 0) return fail_errno(r_, errno, r_.canonical_path);
    if (!S_ISDIR(st.st_mode)) {
      r_.problem = StorageProblem::missing;
      r_.detail = fmt::format("{} is not a directory", r_.canonical_path);
      return false;
    }
    return true;
  }

  bool inspect_mount() {
    stage("mount");
    const auto m = mount_of(read_mountinfo(), r_.canonical_path);
    if (m) {
      r_.mount_point = m->mount_point;
      r_.fs_type = m->fs_type;
      r_.source = m->source;
      r_.mount_options = m->mount_options;
      r_.read_only = m->read_only();
    }
    return true;
  }

  bool check_space() {
    stage("statvfs");
    struct statvfs vfs {};
    if (::statvfs(r_.canonical_path.c_str(), &vfs) != 0) return fail_errno(r_, errno, r_.canonical_path);
    // f_bavail: what an unprivileged writer may use (root's reserved blocks not counted).
    r_.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    r_.total_bytes = static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    if (vfs.f_flag & ST_RDONLY) r_.read_only = true;
    if (r_.read_only && spec_.writable) {
      r_.problem = StorageProblem::read_only;
      r_.detail = fmt::format("{} is mounted read-only ({} on {}, options {})", r_.canonical_path, r_.fs_type,
                              r_.mount_point, r_.mount_options);
      return false;
    }
    const std::uint64_t need = spec_.min_free_bytes + (spec_.writable ? spec_.size_bytes : 0);
    if (r_.free_bytes < need) {
      r_.problem = StorageProblem::no_space;
      r_.detail = fmt::format("{} has {} bytes free, under the {} needed ({} minimum free{})",
                              r_.canonical_path, r_.free_bytes, need, spec_.min_free_bytes,
                              spec_.writable ? fmt::format(" + {} for the test file", spec_.size_bytes) : "");
      return false;
    }
    if (spec_.writable) {
      stage("sweep");
      r_.swept = sweep_stale_storage_files(r_.canonical_path);
    }
    return true;
  }

  bool create() {
    const std::string file = storage_test_file(r_.canonical_path);
    r_.file = file;  // known before the open, so a hung create still names (and removes) it
    stage("create");
    const int base = O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC;
    int fd = -1;
    if (spec_.direct) {
      fd = ::open(file.c_str(), base | O_DIRECT, 0600);
      if (fd >= 0) {
        r_.io_mode = "direct";
      } else if (errno == EINVAL) {
        // open(2): EINVAL "The filesystem does not support the O_DIRECT flag" (tmpfs before 6.6, some FUSE).
        r_.io_mode =
            fmt::format("buffered: {} refused O_DIRECT (EINVAL); the page cache is dropped before the read",
                        r_.fs_type.empty() ? "the filesystem" : r_.fs_type);
      } else {
        return fail_errno(r_, errno, fmt::format("creating {}", file));
      }
    } else {
      r_.io_mode = "buffered: direct I/O turned off (direct: false)";
    }
    if (fd < 0) fd = ::open(file.c_str(), base, 0600);
    if (fd < 0) return fail_errno(r_, errno, fmt::format("creating {}", file));
    fd_.reset(fd);
    return true;
  }

  bool write() {
    stage("write");
    buf_ = aligned_buffer(kChunk);
    if (!buf_) return fail_errno(r_, ENOMEM, "test buffer");
    const auto t0 = Clock::now();
    for (std::uint64_t off = 0; off < spec_.size_bytes; off += kChunk) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, spec_.size_bytes - off));
      fill_storage_pattern(seed(), off, std::span<std::byte>(buf_.get(), n));
      int err = write_all(fd_.get(), buf_.get(), n, off);
      if (err == EINVAL && r_.io_mode == "direct" && off == 0) {
        // Some filesystems accept O_DIRECT at open and refuse the aligned write (EINVAL):
        // continue buffered and say so.
        ::fcntl(fd_.get(), F_SETFL, ::fcntl(fd_.get(), F_GETFL) & ~O_DIRECT);
        r_.io_mode =
            "buffered: the first O_DIRECT write was refused (EINVAL); the page cache is dropped before the "
            "read";
        err = write_all(fd_.get(), buf_.get(), n, off);
      }
      if (err != 0) return fail_errno(r_, err, fmt::format("writing {} at offset {}", r_.file, off));
    }
    if (::fsync(fd_.get()) != 0) return fail_errno(r_, errno, fmt::format("fsync of {}", r_.file));
    r_.write_s = seconds_since(t0);
    r_.bytes = spec_.size_bytes;
    return true;
  }

  // Each sample rewrites one 4 KiB block with its own pattern bytes (so the read-back still
  // verifies) and times the fsync that makes it durable: an fsync with nothing dirty measures
  // nothing on most filesystems.
  bool fsync_series() {
    stage("fsync");
    const std::uint64_t blocks = std::max<std::uint64_t>(1, spec_.size_bytes / kAlign);
    for (int i = 0; i < spec_.fsync_samples; ++i) {
      const std::uint64_t off = (static_cast<std::uint64_t>(i) % blocks) * kAlign;
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kAlign, spec_.size_bytes - off));
      fill_storage_pattern(seed(), off, std::span<std::byte>(buf_.get(), n));
      if (const int err = write_all(fd_.get(), buf_.get(), n, off); err != 0)
        return fail_errno(r_, err, fmt::format("rewriting {} at offset {}", r_.file, off));
      const auto t0 = Clock::now();
      if (::fsync(fd_.get()) != 0) return fail_errno(r_, errno, fmt::format("fsync of {}", r_.file));
      r_.fsync_ms.push_back(seconds_since(t0) * 1000);
    }
    return true;
  }

  bool read_back() {
    stage("read");
    const bool direct = r_.io_mode == "direct";
    // Buffered: drop the file's clean pages, so the read comes from the device, not from memory
    // (posix_fadvise(2), POSIX_FADV_DONTNEED). tmpfs has no device: its pages are the data.
    if (!direct) ::posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
    fd_.reset(::open(r_.file.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0)));
    if (fd_.get() < 0) return fail_errno(r_, errno, fmt::format("opening {} to read it back", r_.file));
    double read_s = 0;
    for (std::uint64_t off = 0; off < spec_.size_bytes; off += kChunk) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, spec_.size_bytes - off));
      std::size_t got = 0;
      const auto t0 = Clock::now();
      while (got < want) {
        const ssize_t n = ::pread(fd_.get(), buf_.get() + got, want - got, static_cast<off_t>(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_errno(r_, errno, fmt::format("reading {} at offset {}", r_.file, off + got));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
      }
      read_s += seconds_since(t0);
      verify_storage_pattern(seed(), off, std::span<const std::byte>(buf_.get(), got), r_.mismatch);
      if (got < want) {
        // The file ends early: every byte not there is a byte lost.
        if (r_.mismatch.bad_bytes == 0) r_.mismatch.first_bad_offset = off + got;
        r_.mismatch.bad_bytes += spec_.size_bytes - (off + got);
        break;
      }
    }
    r_.read_s = read_s;
    if (r_.mismatch.bad_bytes > 0) {
      r_.problem = StorageProblem::corrupt;
      r_.detail =
          fmt::format("{}: {} of {} bytes read back differ from what was written (first at offset {})",
                      r_.file, r_.mismatch.bad_bytes, spec_.size_bytes, r_.mismatch.first_bad_offset);
      return false;
    }
    return true;
  }

  void remove() {
    stage("remove");
    fd_.reset();
    if (::unlink(r_.file.c_str()) == 0 || errno == ENOENT) {
      r_.file_removed = true;
    } else if (r_.problem == StorageProblem::none) {
      fail_errno(r_, errno, fmt::format("removing {}", r_.file));
    }
  }

  std::uint64_t seed() const { return spec_.seed; }

  const StoragePathSpec& spec_;
  const StageSink& sink_;
  StorageReport r_;
  Fd fd_;
  AlignedBuffer buf_;
};

}  // namespace

std::string_view to_string(StorageProblem p) {
  switch (p) {
    case StorageProblem::none:
      return "none";
    case StorageProblem::missing:
      return "missing";
    case StorageProblem::permission:
      return "permission";
    case StorageProblem::read_only:
      return "read_only";
    case StorageProblem::no_space:
      return "no_space";
    case StorageProblem::io_error:
      return "io_error";
    case StorageProblem::corrupt:
      return "corrupt";
  }
  return "io_error";
}

StorageProblem problem_for_errno(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return StorageProblem::missing;
    case EACCES:
    case EPERM:
      return StorageProblem::permission;
    case EROFS:
      return StorageProblem::read_only;
    case ENOSPC:
    case EDQUOT:
      return StorageProblem::no_space;
    default:
      return StorageProblem::io_error;
  }
}

StorageReport run_storage_io(const StoragePathSpec& spec, const StageSink& on_stage) {
  return Sequence(spec, on_stage).run();
}

}  // namespace gpuqual::probes
