#include "probes/container/container_runtime.hpp"

#include <charconv>

namespace gpuqual::probes {

std::string GpuRequest::to_string() const {
  switch (kind) {
    case Kind::none:
      return "none";
    case Kind::all:
      return "all";
    case Kind::count:
      return std::to_string(count);
  }
  return "none";
}

std::optional<GpuRequest> parse_gpu_request(const std::string& text) {
  if (text == "none" || text == "0") return GpuRequest{};
  if (text == "all") return GpuRequest{GpuRequest::Kind::all, 0};
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > 1024) return std::nullopt;
  return GpuRequest{GpuRequest::Kind::count, n};
}

}  // namespace gpuqual::probes
