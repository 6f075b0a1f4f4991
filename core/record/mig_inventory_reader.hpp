#pragma once
// Reads the record's `gpus[].mig` object (mig_inventory_json.hpp writes it) with the record
// reader's strict accessors: every key known, every number in range, and a MIG UUID that says MIG.
#include "core/base/simdjson_fields.hpp"
#include "core/record/mig_inventory.hpp"

namespace gpuqual {

MigState mig_state_from(simdjson_fields::Obj& o);

}  // namespace gpuqual
