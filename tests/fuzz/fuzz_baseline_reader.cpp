// libFuzzer target: the baseline loader (YAML) on arbitrary bytes. Any input either loads into
// a Baseline or throws InputError (exit 3 at the CLI); any other exception, a crash, a memory
// error or undefined behaviour fails. Whatever loads must survive baseline_to_yaml and load
// back to the same document (gpuqual baseline build writes with baseline_to_yaml).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/base/input_error.hpp"
#include "core/baseline/baseline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<gpuqual::Baseline> baseline;
  try {
    baseline = gpuqual::parse_baseline_yaml(text, "fuzz.yaml");
  } catch (const gpuqual::InputError&) {
    return 0;
  }
  // Outside the try: an InputError on the writer's own output is a bug, too.
  const std::string written = gpuqual::baseline_to_yaml(*baseline);
  const std::string again =
      gpuqual::baseline_to_yaml(gpuqual::parse_baseline_yaml(written, "roundtrip.yaml"));
  if (written != again) {
    std::fprintf(stderr, "fuzz_baseline_reader: write/load round trip changed the baseline:\n%s\n---\n%s\n",
                 written.c_str(), again.c_str());
    std::abort();
  }
  return 0;
}
