#include "core/fleet/matrix_rollback.hpp"

#include <fmt/format.h>

#include "core/base/utc_time.hpp"

namespace gpuqual {

std::optional<Rollback> rollback_for(const Matrix& m, const std::string& cls) {
  const MatrixRow* best = nullptr;
  std::optional<std::int64_t> best_ms;
  for (const auto& r : m.rows) {
    if (r.hardware_class != cls || r.state != MatrixState::known_good) continue;
    const auto ms = parse_rfc3339_ms(r.last_seen);
    // Newest last-seen wins; rows are sorted, so a tie keeps the first: the same answer every time.
    if (!best || (ms && (!best_ms || *ms > *best_ms))) {
      best = &r;
      best_ms = ms;
    }
  }
  if (!best) return std::nullopt;
  Rollback out;
  out.row = best;
  out.comment.push_back(
      fmt::format("gpuqual matrix rollback --class {}: the newest known-good stack of the class", cls));
  out.comment.push_back(fmt::format("from {}: {}; last seen {}", m.origin.empty() ? "the matrix" : m.origin,
                                    best->why, best->last_seen.empty() ? "(unknown)" : best->last_seen));
  auto& rules = out.target.classes[cls];
  for (const auto& [name, value] : best->stack) {
    if (name == "vbios" && value.find(',') != std::string::npos) {
      // One exact rule holds for every GPU; a class whose GPUs ran several VBIOS versions is not pinned.
      out.comment.push_back(fmt::format("vbios not pinned: the class's GPUs ran {}", value));
      continue;
    }
    rules[name] = ComponentRule{TargetMatch::exact, value};
  }
  // Every component the row was grouped by: one it does not state is pinned absent, so the
  // target matches this row and never a known-bad one that adds, say, a Kubernetes version.
  std::vector<std::string> absent;
  for (std::string_view name : matrix_component_names()) {
    if (best->component(std::string(name))) continue;
    rules[std::string(name)] = ComponentRule{TargetMatch::absent, ""};
    absent.emplace_back(name);
  }
  if (!absent.empty())
    out.comment.push_back(
        fmt::format("absent (the row's records do not state them): {}", fmt::join(absent, ", ")));
  if (!best->images.empty())
    out.comment.push_back(fmt::format("validated images: {}", fmt::join(best->images, ", ")));
  return out;
}

}  // namespace gpuqual
