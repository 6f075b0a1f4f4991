#pragma once
// Writing an output file without ever leaving half of it, and without destroying what the path
// names when that is not a plain file (docs/run.md "Output files"):
// - a new path or a regular file: temp file next to the target, fsync, rename over it, fsync
//   the directory. A crash leaves either the old or the new content, never a mix.
// - a symlink: the link stays; its target (resolved, also when it does not exist yet) is
//   replaced atomically as above.
// - `-`, /dev/stdout, /dev/fd/N, a character device (/dev/null) or a FIFO: written directly,
//   in place (a rename would turn the device node or the pipe into a regular file).
// - a directory, a block device or a socket: refused.
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuqual {

enum class OutputKind {
  replace,  // new path or regular file (possibly through symlinks): atomic temp + rename
  stream,   // stdout, a character device or a FIFO: written in place
};

struct OutputTarget {
  OutputKind kind = OutputKind::replace;
  // For `replace`: the file to create or replace, symlinks resolved. For `stream`: the path to
  // open ("-" for stdout).
  std::string path;
};

// Throws std::runtime_error "<path>: is a directory" (or "is a block device, not a file", ...)
// for a path that cannot be an output.
OutputTarget resolve_output(const std::string& path);

// Throws std::runtime_error with the path and errno text when the write fails (disk full,
// permissions, a directory); a temp file is removed.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace gpuqual
