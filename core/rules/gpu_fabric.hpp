#pragma once
// The NVLink fabric rules of the `health` check, per GPU: its registration with the fabric
// (nvmlDeviceGetGpuFabricInfoV), the fabric health mask decoded field by field, its NVLink link
// count and generation against its hardware class (baselines/nvlink-expected.yaml), and the
// recovery action the driver names for it (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, also what an
// Xid 154 announces). Pure functions over GpuHealthReading; device/nvml/nvml_fabric.hpp reads.
//
// Field meanings are nvml.h's (NVML_GPU_FABRIC_STATE_*, NVML_GPU_FABRIC_HEALTH_MASK_*,
// nvmlDeviceGpuRecoveryAction_t). An older driver or a GPU without fabric support is never a
// failure: fabric.info_unavailable is info.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/rules/health_severity.hpp"
#include "core/rules/health_snapshot.hpp"

namespace gpuqual {

// One row of baselines/nvlink-expected.yaml.
struct NvLinkClassExpectation {
  int links = 0;           // NVLink links per GPU
  int nvlink_version = 0;  // NVLink generation (4, 5)
  std::string source;
};
using NvLinkClassTable = std::map<std::string, NvLinkClassExpectation>;  // class slug → row

inline constexpr const char* kNvLinkExpectedFile = "nvlink-expected.yaml";
// The finding of a GPU whose driver names a recovery action; its value is the
// nvmlDeviceGpuRecoveryAction_t (the verdict maps it to a node action: core/verdict/verdict_action.hpp).
inline constexpr const char* kRecoveryActionCode = "gpu.recovery_action";

// Reads the table; InputError(path, where, problem) on a malformed file.
NvLinkClassTable parse_nvlink_expectations(const std::string& yaml, const std::string& origin);
NvLinkClassTable load_nvlink_expectations(const std::string& path);

// The health mask's fields: each is the raw 2-bit (4-bit for incorrect_configuration) value,
// 0 = not supported by this GPU/driver; 1 = TRUE, 2 = FALSE for the yes/no fields.
struct FabricHealthFields {
  unsigned degraded_bw = 0;              // NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_*
  unsigned route_recovery = 0;           // _ROUTE_RECOVERY_*: route recovery in progress
  unsigned route_unhealthy = 0;          // _ROUTE_UNHEALTHY_*
  unsigned access_timeout_recovery = 0;  // _ACCESS_TIMEOUT_RECOVERY_*
  unsigned incorrect_configuration = 0;  // _INCORRECT_CONFIGURATION_* (1 = correct)
};
FabricHealthFields decode_fabric_health_mask(std::uint32_t mask);
// "incorrect SysGUID", "insufficient NVLinks", ... for an _INCORRECT_CONFIGURATION_* value.
std::string incorrect_configuration_name(unsigned value);
// "not supported", "not started", "in progress", "completed" for NVML_GPU_FABRIC_STATE_*.
std::string fabric_state_name(int state);
// The NVLink generation of an nvmlNvlinkVersion_t (6 → 4, 7 → 5, 8 → 6); 0 when unknown.
int nvlink_generation(int nvml_version);
// "none", "GPU reset", "node reboot", "drain P2P", "drain and reset", "recover IMEX domain",
// "bus reset", "system reboot" for nvmlDeviceGpuRecoveryAction_t.
std::string recovery_action_name(int action);

// What the fabric rules need from the health policy.
struct FabricPolicy {
  // GPU index → the expectation of its class (only GPUs of a listed class).
  std::map<int, NvLinkClassExpectation> nvlink_by_gpu;
  std::set<int> no_nvlink_fabric;     // HealthPolicy::no_nvlink_fabric
  bool single_gpu_partition = false;  // HealthPolicy::single_gpu_partition
};

// Every finding code these rules can emit (health_finding_codes() includes them).
const std::vector<std::string>& gpu_fabric_finding_codes();

// The fabric, class NVLink and recovery-action findings of one GPU, rated by `table`.
std::vector<Finding> gpu_fabric_findings(const GpuHealthReading& g, const FabricPolicy& policy,
                                         const SeverityTable& table);

// Xid 154 findings take the action the driver names for their GPU, where NVML gave one: the
// action becomes "<name> (NVML recovery action of GPU n)" and, for any action but none, the
// severity is gpu.recovery_action's when that is higher.
void apply_recovery_actions(std::vector<Finding>& findings, const HealthSnapshot& now,
                            const SeverityTable& table);

}  // namespace gpuqual
