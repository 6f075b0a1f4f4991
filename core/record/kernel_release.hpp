#pragma once
// The node's kernel as a record states it (docs/inventory.md, "Kernel"): `node.kernel` is
// `uname -r`, the release exactly as Kubernetes' status.nodeInfo.kernelVersion shows it, so that
// `--node-file`, `--target kernel` and `revalidate` compare like with like; `node.arch` is
// `uname -m`. gpuqual before that wrote both in one string, "6.1.0-28-amd64 (x86_64)"; the
// record readers split such a string on read, so an old record is judged as a new one.
#include <optional>
#include <string>
#include <string_view>

namespace gpuqual {

struct KernelRelease {
  std::string release;  // "6.1.0-28-amd64"
  std::string arch;     // "x86_64" from an old record's suffix; "" when it had none
};

// Splits the old "<release> (<arch>)" form (the arch one token of letters, digits, '_' and
// '-'); any other text is the release as it is.
KernelRelease split_recorded_kernel(std::string_view kernel);

// Sets `kernel` and `arch` from a record's `node.kernel` and `node.arch` (absent: ""): the
// release without the old suffix, and the arch from the field, else from the suffix. The
// problem when the two disagree ("kernel says x86_64, arch says aarch64"), else nullopt.
std::optional<std::string> normalise_recorded_kernel(std::string& kernel, std::string& arch);

}  // namespace gpuqual
