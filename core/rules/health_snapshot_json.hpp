#pragma once
// JSON form of HealthSnapshot: the fixtures of the health rule tests (tests/data/health/), the
// side file the health check writes next to the record, and the "before" snapshot the runner's
// parent can take at the start of a run. Strict on the way in (unknown fields are errors).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/rules/health_snapshot.hpp"

namespace gpuqual {

inline constexpr const char* kHealthSnapshotSchema = "gpuqual.nvml-snapshot/v1";

nlohmann::json to_json(const HealthSnapshot& snapshot);
// Throws InputError(file, "$.gpus[0].remap_pending", problem).
HealthSnapshot health_snapshot_from_json(const nlohmann::json& j, const std::string& file);
HealthSnapshot load_health_snapshot(const std::string& path);

}  // namespace gpuqual
