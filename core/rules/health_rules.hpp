#pragma once
// The health rules: pure functions from NVML readings (HealthSnapshot) to findings and a
// status. Severities, meanings and actions come from the SeverityTable (data), never from here;
// these rules only decide which facts are findings. CPU-tested with JSON snapshot fixtures.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/rules/gpu_fabric.hpp"
#include "core/rules/health_severity.hpp"
#include "core/rules/health_snapshot.hpp"

namespace gpuqual {

struct HealthPolicy {
  std::optional<int> expect_gpus;        // suite param expect_gpus, or the baseline's GPU count
  bool expect_ecc = true;                // data-center GPUs run with ECC on
  int temp_margin_c = 5;                 // warn this close to the slowdown threshold
  double power_limit_tolerance_w = 1.0;  // enforced limit this far below default is a finding
  // NVLink links every GPU must have active (suite param / baseline); empty: the links NVML
  // answers for, less the link-less cases below.
  std::optional<int> expect_nvlinks;
  // The run's partition holds one GPU (one GPU on the node, or a GPU passed into a VM): with
  // every link down, NVLink is absent, not broken (info, not fail).
  bool single_gpu_partition = false;
  // GPU indices of PCIe parts (class form factor pcie): no NVLink fabric to expect.
  std::set<int> no_nvlink_fabric;
  // GPU index → the NVLink its hardware class must have (baselines/nvlink-expected.yaml);
  // judged by core/rules/gpu_fabric.hpp with the fabric registration and health mask.
  std::map<int, NvLinkClassExpectation> nvlink_by_gpu;
  // Why the Xid watch was off or had a gap (its waits failed); nullopt: it watched throughout.
  // Off is `error`: a health check that could not watch for Xids did not read one of its core
  // fields. When the reason records NVML_ERROR_GPU_IS_LOST it is also a gpu.lost finding.
  std::optional<std::string> xid_watch_off;
};

struct HealthEvaluation {
  Status status = Status::pass;
  std::string reason;  // one line; required for skip and fail
  std::vector<Finding> findings;
  std::vector<GpuCheckStatus> per_gpu;
  // "gpu 0: retired_pages: not applicable to compute capability 9.0 (...)": core fields this
  // product does not have (core/rules/health_core_fields.hpp), said rather than silently skipped.
  std::vector<std::string> not_applicable;
  // "GPU 0: ecc_mode, remapped_rows": the core fields a vGPU guest is not given. Not applicable,
  // and not read either: such a GPU, and a check with nothing failed, is a skip with reason_code
  // vgpu_guest, never a pass (docs/mig.md, "What does not apply").
  std::vector<std::string> not_provided_to_vgpu;
  std::string reason_code;  // the not-applicable code of a skip ("vgpu_guest"), else ""
};

// Every finding code (other than xid.<n>) these rules can emit: the table must define them all.
const std::vector<std::string>& health_finding_codes();

// Judges `now`. `before` (optional) is an earlier snapshot of the same node: counters that grew
// between the two are findings of their own (*.grew). GPUs are matched by UUID, else by index.
// NVML unavailable → skip with its reason. Xids in `now.xids` become xid.<code> findings.
// A GPU passes only on its core readings (core/rules/health_core_fields.hpp): one not read makes that
// GPU, and the check, `error` naming the field and NVML's message (a fail still outranks it).
HealthEvaluation evaluate_health(const HealthSnapshot& now, const HealthSnapshot* before,
                                 const HealthPolicy& policy, const SeverityTable& table);

// One finding per (Xid code, GPU): severity from the table (own_kernel_severity when any of the
// events hit while gpuqual's own check ran), value = how many events were seen.
std::vector<Finding> xid_findings(const std::vector<XidEvent>& events, const SeverityTable& table);

// The status a set of findings gives: any fail → fail, else any warn → warn, else pass.
Status status_of_findings(const std::vector<Finding>& findings);

}  // namespace gpuqual
