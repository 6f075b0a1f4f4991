#pragma once
// No process left behind. The runner makes itself the "child subreaper" of everything it
// starts (prctl PR_SET_CHILD_SUBREAPER), so a check's grandchild that escaped the check's
// process group (setsid, a double fork) is re-parented to the runner instead of to init.
// After each check the runner kills its check's process group and then every remaining child
// of its own: while no check runs, the runner has no legitimate children.
#include <vector>

namespace gpuqual {

// Idempotent; returns false where the kernel refuses (then only the process group is killed).
bool become_subreaper();

struct ReapResult {
  std::vector<int> killed;      // orphans found, killed (SIGKILL) and reaped
  std::vector<int> unkillable;  // still there after the wait (stuck in the kernel: D state)
};
// Kills and reaps every child of this process but those in `keep` (children it had before the
// check started: they are not the check's orphans). Waits at most `max_wait_s` for them to die.
ReapResult reap_orphans(double max_wait_s = 5.0, const std::vector<int>& keep = {});

// Children of `parent` right now, from /proc.
std::vector<int> children_of(int parent);

}  // namespace gpuqual
