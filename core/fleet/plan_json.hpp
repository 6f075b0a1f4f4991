#pragma once
// JSON of a plan. `plan_waves_json` is what `gpuqual plan --format json` prints: a list with
// one object per wave, so that an Argo step can fan out over it (`withParam`), `{{item.nodes}}`
// being the wave's node names. `plan_to_json` is the whole plan (`gpuqual.plan-result/v1`:
// classes, waves, every node's fate with its reasons), as `--output FILE` writes it.
#include <nlohmann/json_fwd.hpp>

#include "core/fleet/plan.hpp"

namespace gpuqual {

inline constexpr const char* kPlanResultSchema = "gpuqual.plan-result/v1";

nlohmann::json plan_waves_json(const Plan& plan);
nlohmann::json plan_to_json(const Plan& plan);

}  // namespace gpuqual
