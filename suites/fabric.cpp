// fabric: are the node's InfiniBand / RoCE links what they should be? Per HCA port the state,
// physical state, rate and width, link layer and firmware, the error counters before and after
// (growth is a finding), GPUDirect RDMA readiness, and which GPU shares a PCIe switch or NUMA
// node with which HCA (recorded). Read from sysfs without privileges; the rules are in
// core/rules/fabric_rules.cpp, the reading in device/host/fabric_sysfs.cpp.
//
// Counter window: from the run's start when the runner left <side dir>/fabric-before.json
// (RunHealthMonitor writes it before the first check, so a suite that runs `fabric` last sees
// what the GPU and NCCL checks did to the links), else from the check's own start; the check
// waits window_s before its last reading either way.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/base/input_error.hpp"
#include "core/rules/fabric_rules.hpp"
#include "core/rules/pci_relation.hpp"
#include "device/host/fabric_sysfs.hpp"
#include "device/host/pci_gpus.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

namespace {

// The run-start snapshot, when the runner wrote one; nullopt otherwise.
std::optional<FabricSnapshot> run_start_snapshot(const std::string& side_dir) {
  if (side_dir.empty()) return std::nullopt;
  const std::string path = side_dir + "/" + kFabricBeforeFile;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, "$", e.what());
  }
  return fabric_snapshot_from_json(j, path);
}

// Sleeps `seconds` in slices, so that a stop request ends the window early.
void wait_window(double seconds, const CheckContext& ctx) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end && !ctx.should_stop())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// GPU index by sysfs bus id, from the inventory (NVML's spelling converted).
std::optional<int> gpu_index(const CheckContext& ctx, const std::string& bus_id) {
  for (const auto& g : ctx.node_gpus)
    if (!g.pci_bus_id.empty() && sysfs_bus_id(g.pci_bus_id) == bus_id) return g.index;
  return std::nullopt;
}

void record_topology(const FabricSnapshot& s, const FabricExpectations& expect, const CheckContext& ctx,
                     CheckResult& r) {
  const auto gpus = read_pci_gpus(expect.root + "/sys/bus/pci/devices");
  if (!gpus || gpus->empty()) {
    r.attributes["topology"] = "no NVIDIA GPU on the PCI bus: nothing to relate the HCAs to";
    return;
  }
  // Best first: the relation names in core/rules/pci_relation.hpp, nearest to farthest.
  const std::vector<std::string_view> order{"pcie_switch", "host_bridge", "numa_node", "cross_numa",
                                            "unknown"};
  auto rank = [&](std::string_view rel) {
    return std::find(order.begin(), order.end(), rel) - order.begin();
  };
  std::map<std::string, std::pair<std::string, std::string_view>> nearest;  // gpu bus id → (hca, relation)
  for (const auto& h : s.hcas) {
    std::vector<std::string> parts;
    for (const auto& g : *gpus) {
      const auto loc = read_pci_location(expect.root, g.bus_id);
      const std::string_view rel = loc ? pci_relation(h.pci_path, h.numa_node, loc->path, loc->numa_node)
                                       : std::string_view("unknown");
      const auto idx = gpu_index(ctx, g.bus_id);
      parts.push_back(fmt::format("{}{}={}", idx ? fmt::format("gpu{} ", *idx) : "", g.bus_id, rel));
      auto& best = nearest[g.bus_id];
      if (best.first.empty() || rank(rel) < rank(best.second)) best = {h.name, rel};
    }
    r.attributes[h.name + ".gpus"] = fmt::format("{}", fmt::join(parts, ", "));
  }
  for (const auto& [bus, best] : nearest) {
    const auto idx = gpu_index(ctx, bus);
    r.attributes[(idx ? "gpu" + std::to_string(*idx) : bus) + ".nearest_hca"] =
        fmt::format("{} ({})", best.first, best.second);
  }
}

void record_facts(const FabricSnapshot& s, const GpuDirectFacts& gd, CheckResult& r) {
  for (const auto& h : s.hcas) {
    r.attributes[h.name + ".fw_ver"] = h.fw_ver;
    if (!h.hca_type.empty()) r.attributes[h.name + ".hca_type"] = h.hca_type;
    if (!h.board_id.empty()) r.attributes[h.name + ".board_id"] = h.board_id;
    r.attributes[h.name + ".pci"] = h.pci_address.empty() ? "none (not a PCI device)" : h.pci_address;
    r.attributes[h.name + ".numa_node"] = h.numa_node ? std::to_string(*h.numa_node) : "unknown";
    for (const auto& p : h.ports) {
      r.attributes[fmt::format("{}/{}", h.name, p.number)] = fmt::format(
          "{} {} {} {}", p.state, p.phys_state, p.link_layer,
          p.rate_gbps ? fmt::format("{:g} Gb/s ({} {})", *p.rate_gbps, p.width, p.speed) : "rate unreadable");
    }
  }
  std::string why;
  const std::string path = gpudirect_path(gd, &why);
  r.attributes["gpudirect"] = path.empty() ? "unavailable: " + why : path;
  r.attributes["kernel"] = gd.kernel_release;
}

class FabricCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const FabricExpectations expect = parse_fabric_params(ctx.params, "fabric params");
    CheckResult r;
    r.name = "fabric";
    const auto t0 = std::chrono::steady_clock::now();
    auto done = [&]() -> CheckResult& {
      r.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return r;
    };
    r.attributes["root"] = expect.root;

    const auto start = read_fabric_snapshot(expect.root, expect.counters);
    if (!start) {
      r.status = Status::error;
      r.reason = fmt::format("cannot list {}/sys/class: sysfs is not readable here",
                             expect.root == "/" ? "" : expect.root);
      return done();
    }
    if (start->hcas.empty() && expect.hcas.empty() && !expect.expect_hcas) {
      r.status = Status::skip;
      r.reason = fmt::format("no InfiniBand/RoCE adapter: {}/sys/class/infiniband is absent or empty",
                             expect.root == "/" ? "" : expect.root);
      r.reason_code = "no_hca";
      return done();
    }

    // The runner's snapshot is of this node's /sys: it applies when the check reads the same tree.
    std::optional<FabricSnapshot> before = run_start_snapshot(ctx.side_dir);
    if (before && before->root != expect.root) before.reset();
    // The window is waited for either way, so that `run --only fabric` (whose run starts just
    // before the check) still watches the links for window_s.
    wait_window(expect.window_s, ctx);
    if (before) {
      r.attributes["counters_since"] = "start of the run (" + ctx.side_dir + "/" + kFabricBeforeFile + ")";
    } else {
      before = start;
      r.attributes["counters_since"] =
          fmt::format("start of the fabric check ({:g} s window)", expect.window_s);
    }
    const auto after = read_fabric_snapshot(expect.root, expect.counters);
    if (!after) {
      r.status = Status::error;
      r.reason = "sysfs became unreadable during the check";
      return done();
    }
    const GpuDirectFacts gd = read_gpudirect_facts(expect.root);
    FabricJudgement j = judge_fabric(*after, &*before, gd, expect);
    r.status = j.status;
    r.reason = j.reason;
    r.findings = std::move(j.findings);
    r.metrics = std::move(j.metrics);
    r.attributes["hcas_judged"] = std::to_string(j.hcas_judged);
    r.attributes["ports_judged"] = std::to_string(j.ports_judged);
    if (j.ports_judged == 0 && r.status == Status::pass) {
      r.status = Status::skip;
      r.reason = "every HCA port is ignored or out of scope: nothing was judged";
    }
    record_facts(*after, gd, r);
    record_topology(*after, expect, ctx, r);
    return done();
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK(
    FabricCheck, "fabric",
    "InfiniBand/RoCE ports from sysfs: state, rate, firmware, error counters, GPUDirect RDMA, GPU affinity");

}  // namespace gpuqual
