// container_probe: do the node's production images still start, see their GPUs and finish?
// Each probe inspects its image (no pull unless asked), checks the image's CUDA requirement
// against the host driver, runs it under a janitor (no container outlives the check, even
// when the check is SIGKILLed), and judges exit code and output. The work is in probes/;
// this file maps the check's context onto it.
#include <cstdlib>

#include "probes/names.hpp"
#include "probes/probe_config.hpp"
#include "suites/check.hpp"

namespace gpuqual {

namespace {

class ContainerProbeCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const probes::ContainerProbeConfig config = probes::parse_container_probe_params(ctx.params, "container_probe params");
    probes::ProbeContext pc;
    // Containers are named and labelled after the run; the runner exports its run id.
    const char* run_id = std::getenv("GPUQUAL_RUN_ID");
    pc.run_id = run_id && *run_id ? run_id : probes::local_run_id();
    pc.host.driver_version = ctx.node.driver_version;
    pc.host.cuda_driver_version = ctx.node.cuda_driver_version;
    pc.host.has_gpus = !ctx.node_gpus.empty();
    pc.stop = ctx.stop_requested;
    return probes::run_container_probes(config, pc);
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(ContainerProbeCheck, "container_probe",
                       "Start the node's container images (docker/podman/nerdctl), check exit code, output and GPU access");

}  // namespace gpuqual
