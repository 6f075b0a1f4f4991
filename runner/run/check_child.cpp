#include "runner/run/check_child.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "runner/run/check_task.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_child_stop(int) { g_stop.store(true); }

void install_child_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_child_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
}

CheckResult error_result(const std::string& check, std::string reason) {
  return unmeasurable(check, Status::error, std::move(reason));
}

}  // namespace

int run_check_child(const std::string& task_path, const std::string& result_path, int progress_fd) {
  install_child_handlers();
  CheckTask task;
  try {
    task = read_check_task(task_path);
  } catch (const InputError& e) {
    std::fprintf(stderr, "gpuqual __check: %s\n", e.what());
    return 3;
  }
  CheckContext& ctx = task.context;
  ctx.stop_requested = &g_stop;
  // Before any CUDA call: the runtime reads it once, at its first initialisation.
  if (!ctx.visible_devices.empty()) setenv("CUDA_VISIBLE_DEVICES", ctx.visible_devices.c_str(), 1);
  if (progress_fd >= 0) {
    ctx.progress = [progress_fd](const std::string& message) {
      std::string line = message.substr(0, 300);
      for (char& c : line) {
        if (c == '\n' || c == '\r') c = ' ';
      }
      line.push_back('\n');
      [[maybe_unused]] ssize_t n = write(progress_fd, line.data(), line.size());
    };
  }

  const std::string started_at = utc_now_rfc3339();
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult result;
  const CheckInfo* info = CheckRegistry::instance().find(task.check);
  if (!info) {
    result = error_result(task.check, fmt::format("check \"{}\" is not built into this gpuqual", task.check));
  } else {
    try {
      result = info->make()->run(ctx);
    } catch (const std::exception& e) {
      result = error_result(task.check, fmt::format("check threw: {}", e.what()));
    } catch (...) {
      result = error_result(task.check, "check threw a non-standard exception");
    }
  }
  result.name = task.check;
  if (result.started_at.empty()) result.started_at = started_at;
  if (result.duration_s <= 0) {
    result.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  try {
    write_file_atomic(result_path, check_result_to_text(result));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuqual __check: cannot write the result: %s\n", e.what());
    return 4;
  }
  return 0;
}

}  // namespace gpuqual
