#pragma once
// JSON of StackInventory (`node.stack` in a run record), the writer. Layout: each fact is a
// string or null; the reasons of the null ones are in the same object's `unread` map
// ({"bios_version": "/sys/class/dmi/id/bios_version: Permission denied"}). The record reader
// (record_reader.cpp, stack_from) reads it back under the same rules.
#include <nlohmann/json_fwd.hpp>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

nlohmann::json to_json(const StackInventory& stack);

}  // namespace gpuqual
