#include "runner/run/after_abort.hpp"

#include "suites/check.hpp"

namespace gpuqual {

bool needs_clean_up(const ChildOutcome& o) { return o.killed || o.term_signal || !o.orphans_killed.empty(); }

std::vector<std::string> clean_up_after_abort(const std::string& check, const nlohmann::json& params) {
  // Whatever the check declared where it registered (CheckInfo::after_abort); the runner knows
  // no check by name.
  const CheckInfo* info = CheckRegistry::instance().find(check);
  if (info == nullptr || !info->after_abort) return {};
  return info->after_abort(params);
}

}  // namespace gpuqual
