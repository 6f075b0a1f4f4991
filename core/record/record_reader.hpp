#pragma once
// A run-record reader for judging thousands of records in one process (`gpuqual gate`,
// `gpuqual baseline build`): simdjson instead of nlohmann's DOM, about 15x faster on
// sample-heavy records, so a 10,000-node pool is judged in seconds.
//
// Same contract as read_record (record_io.hpp): it accepts exactly the records record_from_json
// accepts, builds the same RunRecord, and rejects bad input with an InputError naming the file,
// the JSON path and the problem (exit 3). tests/unit/test_gate_record_reader.cpp holds both
// readers to that on a fully populated record and on every kind of bad input.
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

 private:
  RunRecord parse_padded(const std::string& origin);  // parses impl_->text

  struct Impl;
  std::unique_ptr<Impl> impl_;
  JsonLimits limits_;
};

}  // namespace gpuqual
