#include "runner/run/orphan_reaper.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace gpuqual {

bool become_subreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

std::vector<int> children_of(int parent) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    if (!stat || !std::getline(stat, text)) continue;  // gone meanwhile
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so parse after the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 1));
    char state = 0;
    int ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(std::atoi(name.c_str()));
  }
  return out;
}

ReapResult reap_orphans(double max_wait_s, const std::vector<int>& keep) {
  ReapResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_wait_s);
  const int self = getpid();
  // Killing one orphan re-parents its own children here too: repeat until none is left.
  while (true) {
    std::vector<int> kids = children_of(self);
    kids.erase(std::remove_if(kids.begin(), kids.end(),
                              [&](int p) {
                                return std::find(result.unkillable.begin(), result.unkillable.end(), p) !=
                                           result.unkillable.end() ||
                                       std::find(keep.begin(), keep.end(), p) != keep.end();
                              }),
               kids.end());
    if (kids.empty()) break;
    for (int pid : kids) kill(pid, SIGKILL);
    for (int pid : kids) {
      while (true) {
        const pid_t r = waitpid(pid, nullptr, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
          if (std::find(result.killed.begin(), result.killed.end(), pid) == result.killed.end()) {
            result.killed.push_back(pid);
          }
          break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
          result.unkillable.push_back(pid);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  }
  return result;
}

}  // namespace gpuqual
