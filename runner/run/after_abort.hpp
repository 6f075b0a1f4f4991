#pragma once
// Clean-up for checks whose process did not end on its own terms (SIGKILL after the grace
// period, a crash, or orphans the runner had to kill). Killing processes cannot reach what a
// check started outside its process tree: a container_probe's containers live in dockerd or
// podman. Such a check declares its after-abort clean-up where it registers
// (GPUQUAL_REGISTER_CHECK_WITH_CLEANUP, suites/check.hpp); this calls it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/run/child_process.hpp"

namespace gpuqual {

// Whether `outcome` calls for the clean-up: killed, died of a signal, or left orphans behind.
bool needs_clean_up(const ChildOutcome& outcome);
// What was removed (and "not removed: ..." entries); empty for checks without a clean-up.
std::vector<std::string> clean_up_after_abort(const std::string& check, const nlohmann::json& params);

}  // namespace gpuqual
