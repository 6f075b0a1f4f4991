#include "core/record_io.hpp"

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/json_input.hpp"
#include "core/record_json.hpp"

namespace gpuqual {

RunRecord read_record(const std::string& path) { return record_from_json(read_json_file(path), path); }

std::string record_to_text(const RunRecord& record) { return to_json(record).dump(2) + "\n"; }

void write_record(const std::string& path, const RunRecord& record) {
  write_file_atomic(path, record_to_text(record));
}

}  // namespace gpuqual
