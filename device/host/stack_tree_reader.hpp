#pragma once
// Reads a host's tree (`--root DIR`, "/" by default) into a HostStack (core/rules/stack_tree.hpp)
// for the `stack` check: files only, no GPU library, no daemon contacted; the package database
// is read by its own tool (dpkg-query --admindir, rpm --dbpath) where one is there.
//
// Hostile trees stay bounded: every symlink is resolved inside the root (an absolute target is
// taken under the root, never on the machine running gpuqual) with at most 40 links per path, so
// a loop is "could not read", not a hang; a file is read only when it is a regular file of at most
// a fixed size (a sparse 1 GB file is refused by its size, unread); directories are listed up to
// a fixed number of entries.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/rules/stack_tree.hpp"

namespace gpuqual {

inline constexpr std::size_t kStackMaxFileBytes = 4u << 20;     // a CDI spec for 8 GPUs is ~20 KiB
inline constexpr std::size_t kStackMaxStatusBytes = 64u << 20;  // dpkg's status file: a few MiB
inline constexpr std::size_t kStackMaxDirEntries = 4096;

// Paths of the host, read under a root. Every problem reading an existing path is kept in
// `unread`, once per path.
class HostTree {
 public:
  explicit HostTree(std::string root);
  const std::string& root() const { return root_; }

  // The local path of host path `p` (absolute) with every symlink resolved inside the root; nullopt
  // (and `why`) when a link chain is longer than 40 or a component is not a directory.
  std::optional<std::string> resolve(const std::string& p, std::string* why = nullptr) const;

  enum class Read { absent, ok, unread };
  // The whole file, at most `max_bytes`. absent: it does not exist; unread: the problem is kept.
  Read read(const std::string& p, std::string& text, std::size_t max_bytes = kStackMaxFileBytes);
  bool exists(const std::string& p) const;
  bool is_dir(const std::string& p) const;
  bool executable(const std::string& p) const;
  // Names in directory `p`, sorted; empty when it does not exist (a listing problem is kept).
  std::vector<std::string> list(const std::string& p);
  // The target of symlink `p` as written, "" when `p` is not a symlink.
  std::string link_target(const std::string& p) const;
  void note_unread(const std::string& p, const std::string& problem);

  std::vector<StackUnread> unread;

 private:
  std::string root_;  // without a trailing slash: "" for "/"
};

struct StackReadOptions {
  std::string handler = "nvidia";  // the RuntimeClass's handler
  std::string dpkg_query = "dpkg-query";
  std::string rpm = "rpm";
};

// Where the host's root is as this process sees it: $GPUQUAL_HOST_ROOT (a Job with the
// host-root component mounts the node's / there, read-only), "" when unset. In a pod the
// container's own / holds the image's files, not the node's runtime configuration.
inline constexpr const char* kHostRootEnvVar = "GPUQUAL_HOST_ROOT";
std::string host_root_from_env();

// Everything the rules read. Throws InputError when `root` is not a directory.
HostStack read_host_stack(const std::string& root, const StackReadOptions& options = {});

// Parts, for the tests and the runtime reader (device/host/stack_runtime_reader.cpp).
void read_stack_cdi_specs(HostTree& tree, HostStack& h);
void read_runtime_engines(HostTree& tree, HostStack& h, const std::string& handler);
void read_runtime_mode(HostTree& tree, HostStack& h);
void read_stack_packages(HostTree& tree, HostStack& h, const StackReadOptions& options);

}  // namespace gpuqual
