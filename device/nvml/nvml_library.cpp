#include "device/nvml/nvml_library.hpp"

#include <dlfcn.h>

#include <atomic>
#include <utility>

#include "device/nvml/nvml_error.hpp"

namespace gpuqual {

namespace {

// nvmlErrorString of the library once loaded; read by nvml_error_text from any thread. The
// library is never dlclose'd (NVML keeps process-wide state; unloading it under a thread that
// waits on an event set crashes), so the pointer stays valid for the process lifetime.
std::atomic<decltype(&::nvmlErrorString)> g_error_string{nullptr};

template <class Fn>
void resolve(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
}

// A name for an NVML status that needs no loaded library ("NVML_ERROR_NOT_SUPPORTED").
std::string nvml_status_name(nvmlReturn_t status) {
  switch (status) {
    case NVML_SUCCESS:
      return "NVML_SUCCESS";
    case NVML_ERROR_UNINITIALIZED:
      return "NVML_ERROR_UNINITIALIZED";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "NVML_ERROR_INVALID_ARGUMENT";
    case NVML_ERROR_NOT_SUPPORTED:
      return "NVML_ERROR_NOT_SUPPORTED";
    case NVML_ERROR_NO_PERMISSION:
      return "NVML_ERROR_NO_PERMISSION";
    case NVML_ERROR_NOT_FOUND:
      return "NVML_ERROR_NOT_FOUND";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "NVML_ERROR_INSUFFICIENT_SIZE";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "NVML_ERROR_DRIVER_NOT_LOADED";
    case NVML_ERROR_TIMEOUT:
      return "NVML_ERROR_TIMEOUT";
    case NVML_ERROR_IRQ_ISSUE:
      return "NVML_ERROR_IRQ_ISSUE";
    case NVML_ERROR_LIBRARY_NOT_FOUND:
      return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case NVML_ERROR_FUNCTION_NOT_FOUND:
      return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case NVML_ERROR_GPU_IS_LOST:
      return "NVML_ERROR_GPU_IS_LOST";
    case NVML_ERROR_RESET_REQUIRED:
      return "NVML_ERROR_RESET_REQUIRED";
    case NVML_ERROR_NO_DATA:
      return "NVML_ERROR_NO_DATA";
    case NVML_ERROR_UNKNOWN:
      return "NVML_ERROR_UNKNOWN";
    default:
      return "NVML status " + std::to_string(static_cast<int>(status));
  }
}

}  // namespace

std::string nvml_error_text(nvmlReturn_t status) {
  std::string name = nvml_status_name(status);
  if (auto fn = g_error_string.load()) {
    if (const char* text = fn(status)) return name + ": " + text;
  }
  return name;
}

NvmlSession NvmlSession::open(const std::string& library) {
  NvmlSession s;
  s.library_ = library;
  dlerror();
  // RTLD_NOW: every symbol the library exports is bound now; missing ones we detect per dlsym.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    s.reason_ = library + " not loadable (no NVIDIA driver on this node?): " + (err ? err : "unknown");
    return s;
  }
#define GPUQUAL_NVML_RESOLVE(name) resolve(handle, #name, s.api_.name);
  GPUQUAL_NVML_REQUIRED_SYMBOLS(GPUQUAL_NVML_RESOLVE)
  GPUQUAL_NVML_OPTIONAL_SYMBOLS(GPUQUAL_NVML_RESOLVE)
#undef GPUQUAL_NVML_RESOLVE
  std::vector<std::string> required_missing;
#define GPUQUAL_NVML_REQUIRE(name) \
  if (!s.api_.name) required_missing.push_back(#name);
  GPUQUAL_NVML_REQUIRED_SYMBOLS(GPUQUAL_NVML_REQUIRE)
#undef GPUQUAL_NVML_REQUIRE
#define GPUQUAL_NVML_NOTE(name) \
  if (!s.api_.name) s.missing_.push_back(#name);
  GPUQUAL_NVML_OPTIONAL_SYMBOLS(GPUQUAL_NVML_NOTE)
#undef GPUQUAL_NVML_NOTE
  if (!required_missing.empty()) {
    std::string names;
    for (const auto& n : required_missing) names += (names.empty() ? "" : ", ") + n;
    s.reason_ =
        library + " lacks required NVML symbols (" + names + "): not an NVML library or a driver too old";
    s.api_ = NvmlApi{};
    return s;
  }
  g_error_string.store(s.api_.nvmlErrorString);
  nvmlReturn_t rc = s.api_.nvmlInit_v2();
  if (rc != NVML_SUCCESS) {
    s.reason_ = "nvmlInit_v2 failed: " + nvml_error_text(rc);
    return s;
  }
  s.initialised_ = true;
  return s;
}

NvmlSession::NvmlSession(NvmlSession&& other) noexcept
    : api_(std::exchange(other.api_, NvmlApi{})),
      library_(std::move(other.library_)),
      initialised_(std::exchange(other.initialised_, false)),
      reason_(std::move(other.reason_)),
      missing_(std::move(other.missing_)) {}

NvmlSession& NvmlSession::operator=(NvmlSession&& other) noexcept {
  if (this != &other) {
    if (initialised_ && api_.nvmlShutdown) (void)api_.nvmlShutdown();
    api_ = std::exchange(other.api_, NvmlApi{});
    library_ = std::move(other.library_);
    initialised_ = std::exchange(other.initialised_, false);
    reason_ = std::move(other.reason_);
    missing_ = std::move(other.missing_);
  }
  return *this;
}

NvmlSession::~NvmlSession() {
  // nvmlInit/nvmlShutdown are reference counted by NVML, so sessions may nest.
  if (initialised_ && api_.nvmlShutdown) (void)api_.nvmlShutdown();
}

std::string NvmlSession::missing(const char* symbol) const {
  return std::string(symbol) + " missing from " + library_ + " (driver older than this NVML API)";
}

std::string NvmlSession::error_text(nvmlReturn_t status) const { return nvml_error_text(status); }

}  // namespace gpuqual
