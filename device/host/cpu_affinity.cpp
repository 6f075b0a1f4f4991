#include "device/host/cpu_affinity.hpp"

#include <pthread.h>

namespace gpuqual {

ScopedThreadAffinity::ScopedThreadAffinity() {
  CPU_ZERO(&saved_);
  saved_ok_ = pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) == 0;
}

ScopedThreadAffinity::~ScopedThreadAffinity() {
  if (changed_) (void)pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

bool ScopedThreadAffinity::bind(const std::vector<int>& cpus) {
  if (!saved_ok_) return false;  // never bind what could not be given back
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  if (CPU_COUNT(&set) == 0 || pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) return false;
  changed_ = true;
  return true;
}

std::vector<int> current_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

}  // namespace gpuqual
