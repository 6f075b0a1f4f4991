// `stack`: the known ways an upgrade breaks GPU containers, read from the host's own files before
// any workload meets them: stale CDI specs, the container runtime's NVIDIA handler, the
// daemon-reload risk, Fabric Manager off the driver's version, no driver module for the next
// kernel, a driver upgraded but not rebooted (core/rules/stack_rules.hpp, docs/stack-check.md).
// Needs no GPU: it reads files under `root` (device/host/stack_tree_reader.hpp).
//
// Parameters (suite YAML):
//   root: the host's tree (default $GPUQUAL_HOST_ROOT, else "/"; in a Job, where the host-root
//         component mounts the node's root read-only)
//   handler: the runtime handler the RuntimeClass expects (default "nvidia")
#include <fmt/format.h>

#include "core/base/json_fields.hpp"
#include "core/rules/stack_rules.hpp"
#include "device/host/stack_tree_reader.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/stack_check.hpp"

namespace gpuqual {

StackCheckParams read_stack_check_params(const nlohmann::json& json) {
  JsonObject o(json, "suite", "$.params");
  StackCheckParams p;
  // The suite's `root:` wins; else the host's root where the Job mounts it; else "/".
  if (const std::string host = host_root_from_env(); !host.empty()) p.root = host;
  p.root = o.str_or("root", p.root);
  if (p.root.empty()) o.fail("root", "must not be empty");
  p.handler = o.str_or("handler", p.handler);
  if (p.handler.empty()) o.fail("handler", "must not be empty");
  o.finish();
  return p;
}

CheckResult run_stack_check(const StackCheckParams& p, HostStack* read_back) {
  CheckResult r;
  r.name = "stack";
  StackReadOptions ro;
  ro.handler = p.handler;
  HostStack h = read_host_stack(p.root, ro);
  const StackJudgement j = judge_stack(h, StackRuleOptions{.handler = p.handler});
  r.status = j.status;
  r.reason = j.reason;
  r.reason_code = j.reason_code;
  r.findings = j.findings;
  const StackCheckSummary s = stack_check_summary(h, j);
  r.attributes["stack.root"] = p.root;
  r.attributes["stack.handler"] = p.handler;
  r.attributes["stack.cdi"] = s.cdi;
  r.attributes["stack.runtime"] = s.runtime;
  r.attributes["stack.reboot_pending"] = s.reboot_pending ? "true" : "false";
  for (std::size_t i = 0; i < h.unread.size(); ++i) {
    r.attributes[fmt::format("stack.unread.{}", i)] = h.unread[i].path + ": " + h.unread[i].problem;
  }
  if (r.status == Status::pass) {
    r.reason = fmt::format("coherent: {} CDI spec(s), {} engine(s), driver {}", h.cdi_specs.size(),
                           h.engines.size(), h.loaded_driver.value_or("not loaded"));
  }
  if (read_back) *read_back = std::move(h);
  return r;
}

namespace {

class StackCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    return run_stack_check(read_stack_check_params(ctx.params));
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(StackCheck, "stack",
                       "the host's container stack: CDI specs, runtime handler, daemon-reload risk, Fabric "
                       "Manager, kernel modules, reboot pending (no GPU)");

}  // namespace gpuqual
