// libFuzzer target: the run-record reader on arbitrary bytes. The contract under test: any
// input either parses into a RunRecord or throws InputError (exit 3 at the CLI). Any other
// exception escapes and libFuzzer reports it as a crash; ASan/UBSan report memory errors and
// undefined behaviour on the way. Whatever the reader accepts, the writer must write and the
// reader read back unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/json_input.hpp"
#include "core/record_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuqual::RunRecord record;
  try {
    record = gpuqual::record_from_json(gpuqual::parse_json_text(text, "fuzz.json"), "fuzz.json");
  } catch (const gpuqual::InputError&) {
    return 0;  // rejected with the one error type the CLI turns into exit 3
  }
  // Outside the try: an InputError on the writer's own output is a bug, too.
  const nlohmann::json written = gpuqual::to_json(record);
  const nlohmann::json again = gpuqual::to_json(gpuqual::record_from_json(written, "roundtrip.json"));
  if (written != again) std::abort();
  return 0;
}
