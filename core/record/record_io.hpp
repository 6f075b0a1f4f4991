#pragma once
// Reading and writing run records on disk.
#include <string>

#include "core/record/record.hpp"

namespace gpuqual {

// The record reader (record_reader.hpp) on one file. Throws InputError (exit 3) on anything
// wrong with the file, naming it.
RunRecord read_record(const std::string& path);
// Atomic: temp file in the same directory, fsync, rename. A reader never sees half a record.
void write_record(const std::string& path, const RunRecord& record);
// Indented JSON with every array of numbers (the samples) on one line: readable, and about a
// third fewer bytes for gate to scan than one number per line (docs/performance.md).
std::string record_to_text(const RunRecord& record);
// The collapsing step on its own: `pretty` as nlohmann's dump(indent) writes it.
std::string collapse_number_arrays(const std::string& pretty);

}  // namespace gpuqual
