// libFuzzer target: the run-record reader on arbitrary bytes. The contract under test: any
// input either parses into a RunRecord or throws InputError (exit 3 at the CLI). Any other
// exception escapes and libFuzzer reports it as a crash; ASan/UBSan report memory errors and
// undefined behaviour on the way. Oracles beyond "no crash":
//  - text nlohmann's parser refuses, the reader refuses with nlohmann's message (the line and
//    column of the syntax error, as read_json_file reports it); text it accepts never fails
//    with a syntax message (core/record/record_reader.hpp);
//  - whatever the reader accepts, the writer writes and the reader reads back unchanged.
// What the reader accepts is held to the JSON Schema by tests/integration/test_record_oracle.py.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"

namespace {

[[noreturn]] void disagree(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_record_reader: %s: %s\n", what, detail.c_str());
  std::abort();
}

// nlohmann's verdict on the text alone: empty when it parses, else its message.
std::string syntax_error(std::string_view text) {
  try {
    (void)gpuqual::parse_json_text(text, "fuzz.json");
  } catch (const gpuqual::InputError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static gpuqual::StreamingRecordReader reader;  // one per thread, reused like gate does
  std::optional<gpuqual::RunRecord> read;
  std::string error;
  try {
    read = reader.parse(text, "fuzz.json");
  } catch (const gpuqual::InputError& e) {
    error = e.what();  // rejected with the one error type the CLI turns into exit 3
  }

  const std::string syntax = syntax_error(text);
  if (!syntax.empty() && read) disagree("the reader accepts text nlohmann's parser refuses", syntax);
  if (!syntax.empty() && error != syntax) {
    disagree("a syntax error not located as nlohmann locates it", error + " vs " + syntax);
  }
  if (syntax.empty() && error.find(": malformed JSON: ") != std::string::npos) {
    disagree("the reader calls text nlohmann parses malformed", error);
  }
  if (!read) return 0;
  // Outside any try: an InputError on the writer's own output is a bug, too.
  const nlohmann::json written = gpuqual::to_json(*read);
  const std::string text_written = gpuqual::record_to_text(*read);
  const nlohmann::json again = gpuqual::to_json(reader.parse(text_written, "roundtrip.json"));
  if (written != again) disagree("write/read round trip changed the record", written.dump());
  return 0;
}
