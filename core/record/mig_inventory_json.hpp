#pragma once
// The record's `gpus[].mig` object (schemas/run-record.v1.schema.json, $defs/mig): written by
// record_json.cpp through mig_to_json, read back by record_reader.cpp (mig_inventory_reader.hpp).
#include <nlohmann/json.hpp>

#include "core/record/mig_inventory.hpp"

namespace gpuqual {

nlohmann::json mig_to_json(const MigState& mig);

}  // namespace gpuqual
