#pragma once
// Container runtimes present on the node: the programs found on PATH and the version each one
// reports ("docker 28.2.2", "podman 4.3.1"). Only client version flags are run (no daemon is
// contacted), each with a timeout.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

// First dotted version in a `--version` line: "Docker version 28.2.2, build e6534b4" → "28.2.2";
// "containerd github.com/containerd/containerd 1.6.20~ds1 ..." → "1.6.20~ds1". Empty if none.
std::string parse_tool_version(std::string_view version_output);

// Absolute path of `program` on `path_env` (a PATH value), if it is an executable file there.
std::optional<std::string> find_on_path(const std::string& program, const std::string& path_env);

// What `<program> --version` printed (stdout and stderr together, in the order written, at most
// 64 KiB) when it exited 0 within 5 s; nullopt when it failed, timed out or could not be started.
// An inventory must not hang on a wedged container runtime.
std::optional<std::string> version_output(const std::string& program);

// "<name> <version>" for each known runtime found on PATH (version "unknown" when the program
// exists but its --version fails).
std::vector<std::string> detect_container_runtimes();

}  // namespace gpuqual
