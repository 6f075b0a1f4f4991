#include "probes/container/image_digest.hpp"

#include <nlohmann/json.hpp>

namespace gpuqual::probes {

std::vector<std::string> repo_digests_of(const nlohmann::json& inspect) {
  std::vector<std::string> out;
  auto it = inspect.find("RepoDigests");
  if (it == inspect.end() || !it->is_array()) return out;
  for (const auto& d : *it) {
    if (d.is_string()) out.push_back(d.get<std::string>());
  }
  return out;
}

namespace {

// "nvcr.io/nvidia/cuda:13.0.0-base" → "nvcr.io/nvidia/cuda"; a registry port is not a tag.
std::string repository_of(const std::string& reference) {
  const auto at = reference.find('@');
  std::string repo = reference.substr(0, at);
  const auto colon = repo.rfind(':');
  const auto slash = repo.rfind('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) repo.resize(colon);
  return repo;
}

bool same_repository(const std::string& a, const std::string& b) {
  auto ends_with_path = [](const std::string& longer, const std::string& shorter) {
    return longer.size() > shorter.size() && longer.ends_with(shorter) &&
           longer[longer.size() - shorter.size() - 1] == '/';
  };
  return a == b || ends_with_path(a, b) || ends_with_path(b, a);
}

}  // namespace

std::string pick_repo_digest(const std::string& reference, const std::vector<std::string>& digests) {
  if (reference.find("@sha256:") != std::string::npos) return reference;
  const std::string repo = repository_of(reference);
  for (const auto& d : digests) {
    if (same_repository(repository_of(d), repo)) return d;
  }
  return digests.empty() ? std::string() : digests.front();
}

}  // namespace gpuqual::probes
