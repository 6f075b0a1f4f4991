#include <nlohmann/json.hpp>

#include "core/verdict/verdict_json.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

// A byte that is not UTF-8 (a file name's, as an unreadable record's node name) becomes U+FFFD:
// JSON cannot carry it (docs/output-formats.md), and the verdict must still be written.
std::string render_json(const Verdict& v) {
  return to_json(v).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace gpuqual
