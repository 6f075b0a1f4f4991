#pragma once
// Helpers shared by the test-only checks of gpuqual-testbin.
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual::testbin {

// Appends "<label> <pid>" to params.pid_file when the test gave one, so the test can verify
// afterwards that every process the check started is gone.
inline void note_pid(const CheckContext& ctx, const std::string& label, int pid) {
  if (!ctx.params.contains("pid_file")) return;
  std::ofstream out(ctx.params.at("pid_file").get<std::string>(), std::ios::app);
  out << label << " " << pid << "\n";
}

inline double param(const CheckContext& ctx, const char* key, double fallback) {
  return ctx.params.contains(key) ? ctx.params.at(key).get<double>() : fallback;
}

inline CheckResult result(Status status, std::string reason) {
  CheckResult r;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

// The stand-in for a CUDA device check (device_stand_in.cpp).
std::unique_ptr<Check> make_device_stand_in();

inline void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace gpuqual::testbin
