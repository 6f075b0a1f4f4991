#pragma once
// JSON mapping of the run record, with full validation on the way in.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/record/record.hpp"

namespace gpuqual {

nlohmann::json to_json(const RunRecord& record);
nlohmann::json to_json(const Metric& metric);
nlohmann::json to_json(const Finding& finding);
nlohmann::json to_json(const CheckResult& check);

// Validates everything the schema says and what it cannot say (duplicate GPUs, metric GPU
// indices that name no GPU, a skip without a reason). Throws InputError naming `file` and the
// JSON path of the first problem.
RunRecord record_from_json(const nlohmann::json& j, const std::string& file);
Metric metric_from_json(const nlohmann::json& j, const std::string& file, const std::string& path);
Finding finding_from_json(const nlohmann::json& j, const std::string& file, const std::string& path);
CheckResult check_from_json(const nlohmann::json& j, const std::string& file, const std::string& path);

}  // namespace gpuqual
