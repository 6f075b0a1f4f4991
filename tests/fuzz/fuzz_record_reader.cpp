// libFuzzer target: the run-record readers on arbitrary bytes. The contract under test: any
// input either parses into a RunRecord or throws InputError (exit 3 at the CLI). Any other
// exception escapes and libFuzzer reports it as a crash; ASan/UBSan report memory errors and
// undefined behaviour on the way. Oracles beyond "no crash":
//  - whatever the reader accepts, the writer writes and the reader reads back unchanged;
//  - the streaming reader of gate/baseline build (simdjson) accepts exactly what
//    record_from_json accepts and builds the same record (core/record/record_reader.hpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/record/record_reader.hpp"
#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_json.hpp"

namespace {

[[noreturn]] void disagree(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_record_reader: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<gpuqual::RunRecord> dom;
  std::string dom_error;
  try {
    dom = gpuqual::record_from_json(gpuqual::parse_json_text(text, "fuzz.json"), "fuzz.json");
  } catch (const gpuqual::InputError& e) {
    dom_error = e.what();  // rejected with the one error type the CLI turns into exit 3
  }

  static gpuqual::StreamingRecordReader streaming;  // one per thread, reused like gate does
  std::optional<gpuqual::RunRecord> streamed;
  std::string stream_error;
  try {
    streamed = streaming.parse(text, "fuzz.json");
  } catch (const gpuqual::InputError& e) {
    stream_error = e.what();
  }

  if (dom.has_value() != streamed.has_value()) {
    disagree("readers disagree", dom ? "streaming reader rejects: " + stream_error
                                     : "record_from_json rejects: " + dom_error);
  }
  if (!dom) return 0;
  // Outside any try: an InputError on the writer's own output is a bug, too.
  const nlohmann::json written = gpuqual::to_json(*dom);
  if (gpuqual::to_json(*streamed) != written) disagree("readers build different records", written.dump());
  const nlohmann::json again = gpuqual::to_json(gpuqual::record_from_json(written, "roundtrip.json"));
  if (written != again) disagree("write/read round trip changed the record", written.dump());
  return 0;
}
