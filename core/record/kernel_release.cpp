#include "core/record/kernel_release.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpuqual {

namespace {

bool arch_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
  });
}

}  // namespace

KernelRelease split_recorded_kernel(std::string_view kernel) {
  const std::size_t open = kernel.rfind(" (");
  if (open == std::string_view::npos || open == 0 || !kernel.ends_with(')'))
    return KernelRelease{std::string(kernel), ""};
  const std::string_view arch = kernel.substr(open + 2, kernel.size() - open - 3);
  if (!arch_token(arch)) return KernelRelease{std::string(kernel), ""};
  return KernelRelease{std::string(kernel.substr(0, open)), std::string(arch)};
}

std::optional<std::string> normalise_recorded_kernel(std::string& kernel, std::string& arch) {
  KernelRelease k = split_recorded_kernel(kernel);
  if (k.arch.empty()) return std::nullopt;
  if (!arch.empty() && arch != k.arch)
    return fmt::format("kernel \"{}\" says the architecture {}, arch says {}", kernel, k.arch, arch);
  kernel = std::move(k.release);
  arch = std::move(k.arch);
  return std::nullopt;
}

}  // namespace gpuqual
