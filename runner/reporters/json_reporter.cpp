#include <nlohmann/json.hpp>

#include "core/verdict_json.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

std::string render_json(const Verdict& v) { return to_json(v).dump(2) + "\n"; }

}  // namespace gpuqual
