#include "core/baseline/class_baselines.hpp"

#include <fmt/format.h>

#include "core/base/input_error.hpp"

namespace gpuqual {

std::unique_ptr<Baseline> find_class_baseline(const std::string& slug, const std::string& dir,
                                              std::string* missing) {
  const std::string path = resolve_class_baseline(slug, dir);
  if (path.empty()) {
    if (missing) {
      *missing = fmt::format("no baseline {}/{}.yaml (nor datasheet floors in {}/floors/) for class {}", dir,
                             slug, dir, slug);
    }
    return nullptr;
  }
  return std::make_unique<Baseline>(load_baseline(path));
}

const Baseline* AutoBaselines::for_class(const std::string& slug) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(slug);
  if (it != cache_.end()) return it->second.get();
  return cache_.emplace(slug, find_class_baseline(slug, dir_)).first->second.get();
}

FixedBaselines::FixedBaselines(std::vector<Baseline> baselines) {
  for (auto& b : baselines) {
    auto owned = std::make_unique<Baseline>(std::move(b));
    auto [it, fresh] = by_class_.emplace(owned->hardware_class, owned.get());
    if (!fresh) {
      throw InputError(owned->origin, "hardware_class",
                       fmt::format("class {} already has a baseline ({}): give one --baseline per class",
                                   owned->hardware_class, it->second->origin));
    }
    owned_.push_back(std::move(owned));
  }
}

FixedBaselines FixedBaselines::from_files(const std::vector<std::string>& paths) {
  std::vector<Baseline> loaded;
  for (const auto& p : paths) loaded.push_back(load_baseline(p));
  return FixedBaselines(std::move(loaded));
}

const Baseline* FixedBaselines::for_class(const std::string& slug) {
  auto it = by_class_.find(slug);
  return it == by_class_.end() ? nullptr : it->second;
}

}  // namespace gpuqual
