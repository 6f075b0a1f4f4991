// container_probe: do the node's production images still start, see their GPUs and finish?
// Each probe inspects its image (no pull unless asked), checks the image's CUDA requirement
// against the host driver, runs it under a janitor (no container outlives the check, even
// when the check is SIGKILLed), and judges exit code and output. The work is in probes/;
// this file maps the check's context onto it.
#include "suites/container_probe.hpp"

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/compat/cuda_compat.hpp"
#include "core/rules/health_severity.hpp"
#include "device/node/compat_facts.hpp"
#include "probes/container/container_owner.hpp"
#include "probes/container/names.hpp"
#include "probes/container/probe_config.hpp"
#include "probes/container/self_probe.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

probes::CompatInputs node_compat_inputs(const std::string& tables_dir) {
  probes::CompatInputs in;
  const std::string path = severity_tables_dir(tables_dir) + "/" + kCudaCompatFile;
  try {
    in.table = std::make_shared<const CudaCompatTable>(load_cuda_compat_table(path));
  } catch (const std::exception& e) {
    in.problem = e.what();
  }
  const CompatFacts facts = collect_compat_facts();
  in.host = facts.host;
  in.gpus = facts.gpus;
  return in;
}

std::vector<std::string> container_probe_after_abort(const nlohmann::json& params) {
  std::vector<std::string> out;
  try {
    const probes::ContainerProbeConfig config =
        probes::parse_container_probe_params(params, "container_probe params");
    auto runtime = probes::make_runtime(config.runtime);
    const probes::SweepResult swept = probes::sweep_orphaned_containers(*runtime);
    out = swept.removed;
    for (const auto& f : swept.failed) out.push_back("not removed: " + f);
  } catch (const std::exception& e) {
    out.push_back(std::string("not removed: ") + e.what());
  }
  return out;
}

namespace {

class ContainerProbeCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const probes::ContainerProbeConfig config =
        probes::parse_container_probe_params(ctx.params, "container_probe params");
    probes::ProbeContext pc;
    // Containers are named and labelled after the run; the runner exports its run id.
    const char* run_id = std::getenv("GPUQUAL_RUN_ID");
    pc.run_id = run_id && *run_id ? run_id : probes::local_run_id();
    pc.host.compat = node_compat_inputs(config.tables_dir);
    pc.host.has_gpus = !ctx.node_gpus.empty();
    pc.stop = ctx.stop_requested;
    pc.self_probe_program = probes::find_container_probe_program();
    return probes::run_container_probes(config, pc);
  }
};

}  // namespace

// Its janitor removes the container when the check dies, but the runner's orphan reaper may have
// killed the janitor too: after an abort the runner sweeps containers whose owner is gone.
GPUQUAL_REGISTER_CHECK_WITH_CLEANUP(
    ContainerProbeCheck, "container_probe",
    "Start the node's container images (docker/podman/nerdctl), check exit code, output and GPU access",
    container_probe_after_abort);

}  // namespace gpuqual
