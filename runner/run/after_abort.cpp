#include "runner/run/after_abort.hpp"

#include "suites/container_probe.hpp"

namespace gpuqual {

bool needs_clean_up(const ChildOutcome& o) { return o.killed || o.term_signal || !o.orphans_killed.empty(); }

std::vector<std::string> clean_up_after_abort(const std::string& check, const nlohmann::json& params) {
  // container_probe: its janitor process removes the container when the check dies, but the
  // runner's orphan reaper may have killed the janitor too; this sweeps containers whose
  // owning gpuqual process is gone (suites/container_probe.hpp).
  if (check == "container_probe") return container_probe_after_abort(params);
  return {};
}

}  // namespace gpuqual
