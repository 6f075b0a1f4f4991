// `gpu_sharing`: do the time-slicing or MPS labels, the device plugin's sharing config and the
// Node's capacity agree (docs/mig.md, "Time-slicing and MPS")? `nvidia.com/gpu` must be
// replicas x GPUs; a label that lies about the replicas (GFD #76, k8s-device-plugin #732) is a
// `fail`. The physical GPUs are measured once by the other checks, never once per replica. A node
// whose labels and config share nothing skips with the not-applicable `no_gpu_sharing`.
//
// Parameters:
//   config_file  the device plugin's config, or its ConfigMap as YAML (default
//                /etc/gpuqual/device-plugin/config.yaml; absent there: labels and capacity only)
//   node_file    the Node object as JSON (default: $GPUQUAL_NODE_FILE, as for --node-file)
#include <fmt/format.h>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/rules/gpu_sharing.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_partition_inputs.hpp"

namespace gpuqual {

namespace {

inline constexpr const char* kDefaultPluginConfig = "/etc/gpuqual/device-plugin/config.yaml";

SharingInputs read_inputs(const CheckContext& ctx, CheckResult& result) {
  JsonObject p(ctx.params, "gpu_sharing params", "$");
  const bool named = p.has("config_file");
  const std::string config_file = p.str_or("config_file", kDefaultPluginConfig);
  const std::string node_file = p.str_or("node_file", "");
  p.finish();
  SharingInputs in;
  for (const GpuInfo& g : ctx.node_gpus) in.physical_gpus += (g.mig && g.mig->current) ? 0 : 1;
  in.labels = ctx.node.k8s_labels;
  if (auto text = read_optional_file(config_file, named)) {
    in.config = parse_device_plugin_sharing(*text, config_file);
    result.attributes["config_file"] = config_file;
  }
  in.capacity = read_node_capacity(node_file);
  return in;
}

class GpuSharingCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    CheckResult result;
    result.name = "gpu_sharing";
    SharingInputs in;
    try {
      in = read_inputs(ctx, result);
    } catch (const InputError& e) {
      return unmeasurable("gpu_sharing", Status::error, std::string("bad input: ") + e.what());
    }
    if (!sharing_in_play(in.labels, in.config)) {
      return unmeasurable(
          "gpu_sharing", Status::skip,
          "no time-slicing or MPS: no replicas above 1 or sharing strategy in the labels or the "
          "device plugin's config",
          "no_gpu_sharing");
    }
    const SharingResult judged = judge_gpu_sharing(in);
    result.findings = judged.findings;
    if (!judged.findings.empty()) {
      result.status = Status::fail;
      result.reason = judged.findings.front().detail;
    } else if (judged.compared == 0) {
      result.status = Status::skip;
      result.reason =
          "the GPUs are shared, but neither the device plugin's config nor the Node's capacity was given";
    } else {
      result.status = Status::pass;
    }
    return result;
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(
    GpuSharingCheck, "gpu_sharing",
    "time-slicing/MPS: replicas labels, device plugin config and nvidia.com/gpu capacity agree");

}  // namespace gpuqual
