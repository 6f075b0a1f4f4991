#pragma once
// JSON mapping of the verdict (`gpuqual.verdict/v1`, schemas/verdict.v1.schema.json): what
// `--format json` prints, and what gate or a dashboard reads back.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/verdict/verdict.hpp"

namespace gpuqual {

nlohmann::json to_json(const Verdict& verdict);
// Strict: InputError naming `file`, the JSON path and the problem.
Verdict verdict_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace gpuqual
