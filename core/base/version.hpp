#pragma once
// Version and git revision of this build (generated at build time by cmake/write_version.cmake).
namespace gpuqual {
const char* tool_version();
const char* git_revision();
}  // namespace gpuqual
