#pragma once
// Who created a container: every probe container carries the label
//   gpuqual.owner = <hostname>/<boot id>/<pid>/<process start time>
// of the process that created it. A container whose owner process no longer exists on this
// host is an orphan (its creator was SIGKILLed and its janitor could not act, e.g. because a
// supervising process reaped it): sweep_orphaned_containers removes exactly those, and never a
// container of a live gpuqual, nor one created on another host that shares the runtime.
#include <string>
#include <vector>

#include "probes/container/container_runtime.hpp"

namespace gpuqual::probes {

inline constexpr const char* kOwnerLabel = "gpuqual.owner";
inline constexpr const char* kRunLabel = "gpuqual.run";
inline constexpr const char* kProbeLabel = "gpuqual.probe";

// The owner value of the calling process.
std::string this_process_owner();

enum class OwnerState { alive, gone, foreign };
// foreign: created on another host (or an unreadable value): not ours to judge.
OwnerState owner_state(const std::string& owner);

struct SweepResult {
  std::vector<std::string> removed;
  std::vector<std::string> failed;  // "name: why"
};
// Removes the containers of dead owners. Throws RuntimeUnavailable when the runtime is down.
SweepResult sweep_orphaned_containers(ContainerRuntime& runtime);
// Removes every container of run `run_id` (gpuqual.run label), owners alive or not: for a
// parent that knows the run is over.
SweepResult remove_run_containers(ContainerRuntime& runtime, const std::string& run_id);

}  // namespace gpuqual::probes
