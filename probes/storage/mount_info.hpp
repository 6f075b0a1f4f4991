#pragma once
// Which mount a path lives on, from /proc/self/mountinfo (proc(5), "/proc/pid/mountinfo"):
// filesystem type, source, mount options and super-block options. Reading mountinfo never
// touches the mounted filesystem itself, so it cannot hang on a dead NFS server.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual::probes {

struct MountEntry {
  std::string mount_point;    // unescaped (mountinfo writes ' ' as \040)
  std::string fs_type;        // ext4, xfs, nfs4, tmpfs, lustre, ...
  std::string source;         // /dev/nvme0n1p1, server:/export, tmpfs
  std::string mount_options;  // per-mount: rw,nosuid,relatime
  std::string super_options;  // per-superblock: rw,vers=4.2,...
  // "ro" in either option list: the mount or the filesystem refuses writes.
  bool read_only() const;
};

// Parses mountinfo text; lines that are not of its form are skipped (the kernel writes it).
std::vector<MountEntry> parse_mountinfo(std::string_view text);

// The mount `canonical_path` (absolute, symlinks resolved) is on: the longest mount point that
// is a path prefix of it; of equal mount points the last one (the top of an over-mount).
std::optional<MountEntry> mount_of(const std::vector<MountEntry>& mounts, const std::string& canonical_path);

// Reads /proc/self/mountinfo; empty when it cannot be read.
std::vector<MountEntry> read_mountinfo();

}  // namespace gpuqual::probes
