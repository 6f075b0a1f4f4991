#pragma once
// JSON of StackInventory (`node.stack` in a run record), nlohmann side. Layout: each fact is a
// string or null; the reasons of the null ones are in the same object's `unread` map
// ({"bios_version": "/sys/class/dmi/id/bios_version: Permission denied"}). The simdjson reader
// (gate_record_reader.cpp) reads the same layout through the same rules (stack_fact_reader.hpp).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

nlohmann::json to_json(const StackInventory& stack);
StackInventory stack_from_json(const nlohmann::json& j, const std::string& file, const std::string& path);

}  // namespace gpuqual
