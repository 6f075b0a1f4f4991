// `mig`: is the MIG layout the one the node is meant to have (docs/mig.md, "The layout check")?
// It compares the MIG instances of the record's inventory with the MIG manager's config that
// the `nvidia.com/mig.config` label names, with the `nvidia.com/mig.config.state` label, and with
// the resources the Node advertises (`nvidia.com/mig-<profile>` mixed, `nvidia.com/gpu` single).
// Every disagreement is a `fail` finding naming the GPU and the profile (core/rules/mig_layout.hpp).
// A node whose GPUs are all known not to use MIG skips with the not-applicable `mig_disabled`.
//
// Parameters:
//   config_file  the MIG manager's config, or its ConfigMap as YAML (default
//                /etc/gpuqual/mig/config.yaml; absent there: not compared, with an info finding)
//   node_file    the Node object as JSON (default: $GPUQUAL_NODE_FILE, as for --node-file)
// It reads no GPU: the inventory holds the instances, so it costs milliseconds.
#include <fmt/format.h>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/rules/mig_layout.hpp"
#include "core/rules/mig_mode.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "suites/gpu_partition_inputs.hpp"

namespace gpuqual {

namespace {

inline constexpr const char* kDefaultMigConfig = "/etc/gpuqual/mig/config.yaml";

MigLayoutInputs read_inputs(const CheckContext& ctx, CheckResult& result) {
  JsonObject p(ctx.params, "mig params", "$");
  const bool named = p.has("config_file");
  const std::string config_file = p.str_or("config_file", kDefaultMigConfig);
  const std::string node_file = p.str_or("node_file", "");
  p.finish();
  MigLayoutInputs in;
  in.gpus = ctx.node_gpus;
  in.labels = ctx.node.k8s_labels;
  in.pci_gpus = ctx.node.pci_gpus.value_or(std::vector<PciGpu>{});
  if (auto text = read_optional_file(config_file, named)) {
    in.config = parse_mig_manager_config(*text, config_file);
    in.config_origin = config_file;
    result.attributes["config_file"] = config_file;
  }
  in.capacity = read_node_capacity(node_file);
  for (const char* label : {kMigConfigLabel, kMigConfigStateLabel, kMigStrategyLabel}) {
    if (auto it = in.labels.find(label); it != in.labels.end()) result.attributes[label] = it->second;
  }
  return in;
}

// fail over any fail finding; a skip when nothing could be compared (could not measure).
void conclude(const MigLayoutResult& judged, CheckResult& result) {
  result.findings = judged.findings;
  int fails = 0;
  std::string first;
  std::string unread;
  for (const Finding& f : judged.findings) {
    if (f.severity == Severity::fail && fails++ == 0) first = f.detail;
    if (f.severity == Severity::info) unread += (unread.empty() ? "" : "; ") + f.detail;
  }
  if (fails > 0) {
    result.status = Status::fail;
    result.reason = fails == 1 ? first : fmt::format("{} (and {} more)", first, fails - 1);
  } else if (judged.compared == 0) {
    result.status = Status::skip;
    result.reason = "nothing to compare the MIG layout with: " + unread;
  } else {
    result.status = Status::pass;
  }
}

class MigCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    CheckResult result;
    result.name = "mig";
    if (ctx.node_gpus.empty()) {
      // The cause is the inventory's, said once above the table: not repeated here.
      return unmeasurable("mig", Status::skip, "no GPU in the inventory: no MIG layout to judge");
    }
    if (no_gpu_uses_mig(ctx.node_gpus)) {
      return unmeasurable("mig", Status::skip, "no GPU is in MIG mode, now or after a pending reset",
                          "mig_disabled");
    }
    MigLayoutInputs in;
    try {
      in = read_inputs(ctx, result);
    } catch (const InputError& e) {
      return unmeasurable("mig", Status::error, std::string("bad input: ") + e.what());
    }
    conclude(judge_mig_layout(in), result);
    return result;
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(
    MigCheck, "mig",
    "MIG layout against the MIG manager's config, its state label and the advertised resources");

}  // namespace gpuqual
