#pragma once
// NVML loaded at run time with dlopen("libnvidia-ml.so.1") (docs/architecture.md, "Real components"):
// gpuqual must start on machines without a driver, so it never links libnvidia-ml.
//
// NvmlSession loads the library, resolves every symbol it knows by its versioned name (the
// name nvml.h's macros map to), and calls nvmlInit_v2. Nothing here throws for a missing
// library, a missing symbol or a failing nvmlInit: ok() is false and reason() says why, so a
// check turns it into `skip` with that reason. A symbol an older driver lacks stays null and
// missing(name) gives the sentence to report for the reading that needed it.
#include <nvml.h>

#include <memory>
#include <string>
#include <vector>

namespace gpuqual {

// Required for a usable session; without one of these the session is not ok().
#define GPUQUAL_NVML_REQUIRED_SYMBOLS(X) \
  X(nvmlInit_v2)                         \
  X(nvmlShutdown)                        \
  X(nvmlErrorString)                     \
  X(nvmlDeviceGetCount_v2)               \
  X(nvmlDeviceGetHandleByIndex_v2)

// Optional: each reading that needs one reports "not read: <symbol> missing" when it is null.
#define GPUQUAL_NVML_OPTIONAL_SYMBOLS(X)       \
  X(nvmlSystemGetDriverVersion)                \
  X(nvmlSystemGetCudaDriverVersion_v2)         \
  X(nvmlDeviceGetHandleByPciBusId_v2)          \
  X(nvmlDeviceGetIndex)                        \
  X(nvmlDeviceGetName)                         \
  X(nvmlDeviceGetUUID)                         \
  X(nvmlDeviceGetBrand)                        \
  X(nvmlDeviceGetPciInfo_v3)                   \
  X(nvmlDeviceGetCudaComputeCapability)        \
  X(nvmlDeviceGetMemoryInfo)                   \
  X(nvmlDeviceGetEccMode)                      \
  X(nvmlDeviceGetTotalEccErrors)               \
  X(nvmlDeviceGetMemoryErrorCounter)           \
  X(nvmlDeviceGetRetiredPages)                 \
  X(nvmlDeviceGetRetiredPagesPendingStatus)    \
  X(nvmlDeviceGetRemappedRows)                 \
  X(nvmlDeviceGetCurrentClocksEventReasons)    \
  X(nvmlDeviceGetCurrentClocksThrottleReasons) \
  X(nvmlDeviceGetTemperature)                  \
  X(nvmlDeviceGetTemperatureV)                 \
  X(nvmlDeviceGetTemperatureThreshold)         \
  X(nvmlDeviceGetPowerManagementLimit)         \
  X(nvmlDeviceGetPowerManagementDefaultLimit)  \
  X(nvmlDeviceGetEnforcedPowerLimit)           \
  X(nvmlDeviceGetPowerUsage)                   \
  X(nvmlDeviceGetCurrPcieLinkGeneration)       \
  X(nvmlDeviceGetCurrPcieLinkWidth)            \
  X(nvmlDeviceGetMaxPcieLinkGeneration)        \
  X(nvmlDeviceGetMaxPcieLinkWidth)             \
  X(nvmlDeviceGetGpuMaxPcieLinkGeneration)     \
  X(nvmlDeviceGetPcieReplayCounter)            \
  X(nvmlDeviceGetNvLinkState)                  \
  X(nvmlDeviceGetNvLinkErrorCounter)           \
  X(nvmlDeviceGetMigMode)                      \
  X(nvmlDeviceGetMaxMigDeviceCount)            \
  X(nvmlDeviceGetMigDeviceHandleByIndex)       \
  X(nvmlDeviceGetGpuInstanceId)                \
  X(nvmlDeviceGetComputeInstanceId)            \
  X(nvmlDeviceGetAttributes_v2)                \
  X(nvmlDeviceGetGpuInstanceById)              \
  X(nvmlGpuInstanceGetInfo)                    \
  X(nvmlDeviceGetGpuInstanceProfileInfoV)      \
  X(nvmlDeviceGetVirtualizationMode)           \
  X(nvmlDeviceGetPersistenceMode)              \
  X(nvmlDeviceGetVbiosVersion)                 \
  X(nvmlDeviceGetInforomImageVersion)          \
  X(nvmlDeviceGetInforomVersion)               \
  X(nvmlDeviceGetGspFirmwareVersion)           \
  X(nvmlDeviceGetClockInfo)                    \
  X(nvmlDeviceGetSupportedEventTypes)          \
  X(nvmlEventSetCreate)                        \
  X(nvmlDeviceRegisterEvents)                  \
  X(nvmlEventSetWait_v2)                       \
  X(nvmlEventSetFree)                          \
  X(nvmlDeviceGetGpuFabricInfoV)               \
  X(nvmlDeviceGetFieldValues)

// Function pointers typed from nvml.h's own declarations. Some are deprecated in NVML 13 but
// are the only spelling older drivers have, hence the pragma.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct NvmlApi {
#define GPUQUAL_NVML_MEMBER(name) decltype(&::name) name = nullptr;
  GPUQUAL_NVML_REQUIRED_SYMBOLS(GPUQUAL_NVML_MEMBER)
  GPUQUAL_NVML_OPTIONAL_SYMBOLS(GPUQUAL_NVML_MEMBER)
#undef GPUQUAL_NVML_MEMBER
};
#pragma GCC diagnostic pop

inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

class NvmlSession {
 public:
  // Loads `library` and initialises NVML. Never throws.
  static NvmlSession open(const std::string& library = kNvmlLibrary);

  NvmlSession(NvmlSession&& other) noexcept;
  NvmlSession& operator=(NvmlSession&& other) noexcept;
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  ~NvmlSession();  // nvmlShutdown when nvmlInit succeeded; never throws

  bool ok() const { return initialised_; }
  // Why the session is not usable: "libnvidia-ml.so.1 not loadable (no NVIDIA driver?): <dlerror>",
  // "symbol nvmlInit_v2 missing from ...", "nvmlInit_v2 failed: <nvmlErrorString>".
  const std::string& reason() const { return reason_; }
  const NvmlApi& api() const { return api_; }
  // Optional symbols the loaded library lacks (older driver), by name.
  const std::vector<std::string>& missing_symbols() const { return missing_; }
  // "nvmlDeviceGetRemappedRows missing from libnvidia-ml.so.1 (driver too old)".
  std::string missing(const char* symbol) const;
  // The library's message for a status (nvmlErrorString).
  std::string error_text(nvmlReturn_t status) const;

 private:
  NvmlSession() = default;
  NvmlApi api_;
  std::string library_;
  bool initialised_ = false;
  std::string reason_;
  std::vector<std::string> missing_;
};

}  // namespace gpuqual
