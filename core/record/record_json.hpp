#pragma once
// JSON mapping of the run record: the writer, and the reader's entry for a tree already parsed.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/record/record.hpp"

namespace gpuqual {

nlohmann::json to_json(const RunRecord& record);
nlohmann::json to_json(const Metric& metric);
nlohmann::json to_json(const Finding& finding);
nlohmann::json to_json(const CheckResult& check);

// A record, finding or check result inside JSON already parsed (a task file's inventory, a
// verdict's finding), read by the one record reader (record_reader.hpp): everything the schema
// says and what it cannot say (duplicate GPUs, metric GPU indices that name no GPU, a skip
// without a reason). Throws InputError naming `file` and the JSON path of the first problem.
RunRecord record_from_json(const nlohmann::json& j, const std::string& file);
Finding finding_from_json(const nlohmann::json& j, const std::string& file, const std::string& path);
CheckResult check_from_json(const nlohmann::json& j, const std::string& file, const std::string& path);

}  // namespace gpuqual
