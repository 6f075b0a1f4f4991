#include "probes/container/names.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <stdexcept>

namespace gpuqual::probes {

namespace {
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
}  // namespace

bool is_valid_container_name(const std::string& name) {
  if (name.empty() || name.size() > 128 || !alnum(name[0])) return false;
  for (char c : name)
    if (!alnum(c) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

bool is_valid_image_reference(const std::string& image) {
  if (image.empty() || image.size() > 512 || !alnum(image[0])) return false;
  if (image.find("..") != std::string::npos || image.find("//") != std::string::npos) return false;
  for (char c : image)
    if (!alnum(c) && c != '.' && c != '_' && c != '/' && c != ':' && c != '@' && c != '-') return false;
  return image.back() != '/' && image.back() != ':' && image.back() != '@';
}

void require_container_name(const std::string& name) {
  if (!is_valid_container_name(name))
    throw std::invalid_argument(fmt::format("invalid container name '{}'", name));
}

void require_image_reference(const std::string& image) {
  if (!is_valid_image_reference(image))
    throw std::invalid_argument(fmt::format("invalid image reference '{}'", image));
}

bool image_tag_missing(const std::string& image) {
  if (image.find('@') != std::string::npos) return false;
  const std::size_t slash = image.rfind('/');
  const std::size_t colon = image.rfind(':');
  return colon == std::string::npos || (slash != std::string::npos && colon < slash);
}

std::string container_name(const std::string& run_id, const std::string& probe, int attempt) {
  return fmt::format("gpuqual-{}-{}-{}", slug(run_id), slug(probe), attempt);
}

std::string local_run_id() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  std::random_device rd;
  const auto secs =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  return fmt::format("{}-{}-{}-{:04x}", slug(host).substr(0, 16), ::getpid(), secs, rd() & 0xffff);
}

}  // namespace gpuqual::probes
