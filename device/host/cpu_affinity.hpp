#pragma once
// The calling thread's CPU affinity, bound for a while and then given back: PcieBench binds the
// thread that allocates its pinned buffers to the GPU's NUMA node (first-touch placement), and
// a thread left bound would keep every later test or check in the process on that one node.
// Plain C++ (pthread): the CPU tests bind and restore the test's own thread.
#include <sched.h>

#include <vector>

namespace gpuqual {

class ScopedThreadAffinity {
 public:
  ScopedThreadAffinity();   // saves the calling thread's affinity
  ~ScopedThreadAffinity();  // restores it when it was changed (on the thread that made this)
  ScopedThreadAffinity(const ScopedThreadAffinity&) = delete;
  ScopedThreadAffinity& operator=(const ScopedThreadAffinity&) = delete;

  // Binds the calling thread to `cpus` (ids at or above CPU_SETSIZE are ignored); false when the
  // kernel refused (a cgroup cpuset without them) or nothing could be saved to restore.
  bool bind(const std::vector<int>& cpus);

 private:
  cpu_set_t saved_{};
  bool saved_ok_ = false;
  bool changed_ = false;
};

// The CPUs the calling thread may run on (for tests and records).
std::vector<int> current_thread_cpus();

}  // namespace gpuqual
