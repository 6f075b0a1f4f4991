#pragma once
// Reading and writing run records on disk.
#include <string>

#include "core/record.hpp"

namespace gpuqual {

// Throws InputError (exit 3) on anything wrong with the file, naming it.
RunRecord read_record(const std::string& path);
// Atomic: temp file in the same directory, fsync, rename. A reader never sees half a record.
void write_record(const std::string& path, const RunRecord& record);
std::string record_to_text(const RunRecord& record);

}  // namespace gpuqual
