// `dra`: does NVIDIA's DRA driver publish this node's GPUs (docs/kubernetes.md, "DRA")? The
// node's ResourceSlices of gpu.nvidia.com must list every GPU of the record (every MIG device of
// a GPU in MIG mode) with its UUID, product and the loaded driver's version; the DeviceClasses
// must exist; a ComputeDomain that lists the node must have it Ready. The judging is
// core/rules/dra.hpp. A cluster without the resource.k8s.io API, or without the driver, skips
// with the not-applicable `no_dra`, and the attribute `gpu_path` says how the node's GPUs reach
// pods instead (device plugin or none).
//
// Parameters:
//   objects_file     `kubectl get resourceslices,deviceclasses,computedomains -o json` (default:
//                    $GPUQUAL_DRA_FILE; neither: skip, nothing was read)
//   api_groups_file  `kubectl get --raw /apis` (default: $GPUQUAL_API_GROUPS_FILE): resource.k8s.io
//                    absent there is `no_dra`
//   node             the node's name (default: the record's Kubernetes node name)
//   node_file        the Node object as JSON, for the device plugin's nvidia.com/gpu capacity
//                    (default: $GPUQUAL_NODE_FILE)
#include <fmt/format.h>

#include <cstdlib>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"
#include "core/rules/dra.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_partition_inputs.hpp"

namespace gpuqual {

namespace {

struct DraInputs {
  std::string objects_file;
  std::string api_groups_file;
  std::string node;
  std::string node_file;
};

std::string param_or_env(JsonObject& p, const char* key, const char* env) {
  std::string v = p.str_or(key, "");
  if (v.empty()) {
    if (const char* e = std::getenv(env)) v = e;
  }
  return v;
}

DraInputs read_params(const CheckContext& ctx) {
  JsonObject p(ctx.params, "dra params", "$");
  DraInputs in;
  in.objects_file = param_or_env(p, "objects_file", "GPUQUAL_DRA_FILE");
  in.api_groups_file = param_or_env(p, "api_groups_file", "GPUQUAL_API_GROUPS_FILE");
  in.node = p.str_or("node", ctx.node.k8s_node_name);
  in.node_file = p.str_or("node_file", "");
  p.finish();
  return in;
}

std::optional<long long> gpu_capacity(const std::string& node_file) {
  const auto capacity = read_node_capacity(node_file);
  if (!capacity) return std::nullopt;
  auto it = capacity->find("nvidia.com/gpu");
  return it == capacity->end() ? 0 : it->second;
}

CheckResult no_dra(std::string reason, const std::string& path, std::string api) {
  CheckResult r = unmeasurable("dra", Status::skip, std::move(reason), "no_dra");
  r.attributes["resource_api"] = std::move(api);
  r.attributes["gpu_path"] = path;
  return r;
}

CheckResult judged(const CheckContext& ctx, const DraInputs& in, const DraObjects& objects,
                   const std::string& path) {
  CheckResult result;
  result.name = "dra";
  result.attributes["objects_file"] = in.objects_file;
  result.attributes["gpu_path"] = path;
  result.attributes["node"] = in.node;
  std::size_t devices = 0;
  const auto slices = node_slices(objects, in.node);
  for (const DraSlice* s : slices) devices += s->devices.size();
  result.attributes["slices"] = std::to_string(slices.size());
  result.attributes["devices"] = std::to_string(devices);
  result.findings = judge_dra(objects, in.node, ctx.node_gpus, ctx.node.driver_version);
  if (!result.findings.empty()) {
    result.status = Status::fail;
    result.reason = result.findings.front().detail;
  } else {
    result.status = Status::pass;
  }
  return result;
}

CheckResult run_dra(const CheckContext& ctx) {
  const DraInputs in = read_params(ctx);
  const auto plugin = gpu_capacity(in.node_file);
  if (!in.api_groups_file.empty() &&
      !api_groups_serve_dra(read_json_file(in.api_groups_file), in.api_groups_file))
    return no_dra("the cluster serves no resource.k8s.io API: no DRA", gpu_allocation_path(false, plugin),
                  "absent");
  if (in.objects_file.empty()) {
    return unmeasurable("dra", Status::skip,
                        "no DRA objects given (objects_file, or $GPUQUAL_DRA_FILE): nothing was read");
  }
  const DraObjects objects = parse_dra_objects(read_json_file(in.objects_file), in.objects_file);
  if (!dra_driver_installed(objects)) {
    return no_dra(fmt::format("no DeviceClass {} and no ResourceSlice of {}: the DRA driver is not installed",
                              kDraGpuDeviceClass, kDraGpuDriver),
                  gpu_allocation_path(false, plugin), "present");
  }
  if (in.node.empty()) {
    return unmeasurable("dra", Status::error, "no node name: set the parameter node or $GPUQUAL_NODE_NAME");
  }
  if (ctx.node_gpus.empty()) {
    return unmeasurable("dra", Status::skip,
                        "no GPU to compare the slices with: " + ctx.gpu_unavailable_reason);
  }
  bool has_devices = false;
  for (const DraSlice* s : node_slices(objects, in.node)) has_devices = has_devices || !s->devices.empty();
  return judged(ctx, in, objects, gpu_allocation_path(has_devices, plugin));
}

class DraCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    try {
      return run_dra(ctx);
    } catch (const InputError& e) {
      return unmeasurable("dra", Status::error, std::string("bad input: ") + e.what());
    }
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(DraCheck, "dra",
                       "DRA: the node's ResourceSlices of gpu.nvidia.com list every GPU with the loaded "
                       "driver, DeviceClasses exist, ComputeDomains Ready");

}  // namespace gpuqual
