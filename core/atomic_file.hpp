#pragma once
// Atomic file replacement: write to a temp file next to the target, fsync it, rename over the
// target, fsync the directory. A crash leaves either the old or the new content, never a mix.
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuqual {

// Throws std::runtime_error with the path and errno text when the write fails (disk full,
// permissions); the temp file is removed.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace gpuqual
