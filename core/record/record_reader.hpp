#pragma once
// The run-record reader: the one place a run record is read (`compare`, `diff`, `report`, `gate`,
// `baseline build`, `matrix build`, `plan`). read_record (record_io.hpp) and the *_from_json
// functions of a tree already parsed (record_json.hpp) are wrappers of it. simdjson instead of
// nlohmann's DOM, about 15x faster on sample-heavy records, so a 10,000-node pool is judged in
// seconds.
//
// It accepts what schemas/run-record.v1.schema.json accepts, less the rules a JSON Schema cannot
// state (the schema's description lists them), and refuses anything else with an InputError
// naming the file, the JSON path and the problem (exit 3). Malformed text is located by
// nlohmann's parser (line and column), the message read_json_file gives. The oracle test
// (tests/integration/test_record_oracle.py) holds it to the schema on the fuzz corpus, the bad
// records and seeded mutations; tests/unit/test_record_reader.cpp on every kind of bad input.
//
// One reader per thread: it reuses its parse buffers between records and keeps nothing of a
// record once `read` returns.
#include <memory>
#include <string>
#include <string_view>

#include "core/base/json_input.hpp"
#include "core/record/record.hpp"

namespace gpuqual {

class StreamingRecordReader {
 public:
  explicit StreamingRecordReader(const JsonLimits& limits = {});
  ~StreamingRecordReader();
  StreamingRecordReader(const StreamingRecordReader&) = delete;
  StreamingRecordReader& operator=(const StreamingRecordReader&) = delete;

  RunRecord read(const std::string& path);
  RunRecord parse(std::string_view text, const std::string& origin);
  // One object of a record on its own, standing at JSON path `path` of `origin` (a check
  // child's result file, a finding inside a verdict): the rules and messages of a record's.
  CheckResult parse_check(std::string_view text, const std::string& origin, const std::string& path);
  Finding parse_finding(std::string_view text, const std::string& origin, const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuqual
