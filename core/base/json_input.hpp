#pragma once
// Reading untrusted JSON files safely: size limit, emptiness, binary garbage, nesting depth,
// syntax. Every failure is an InputError naming the file (exit code 3), never a crash.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace gpuqual {

struct JsonLimits {
  std::size_t max_bytes = 256u << 20;  // a 10,000-sample burn-in record is a few MiB
  int max_depth = 64;                  // records are ~6 levels deep
};

// Reads and parses `path`. Throws InputError("<path>", "", problem).
nlohmann::json read_json_file(const std::string& path, const JsonLimits& limits = {});
// Parses text already in memory; `origin` names it in errors.
nlohmann::json parse_json_text(std::string_view text, const std::string& origin,
                               const JsonLimits& limits = {});
// Reads a whole file with the same size/emptiness checks (for YAML inputs as well).
std::string read_text_file(const std::string& path, std::size_t max_bytes);
// The same into `text`, whose allocation is reused from call to call (a reader judging thousands
// of files), with at least `padding` bytes of capacity after the text (simdjson reads ahead).
void read_text_file_into(const std::string& path, std::size_t max_bytes, std::string& text,
                         std::size_t padding);

}  // namespace gpuqual
