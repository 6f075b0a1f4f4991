#pragma once
// The rules of the `fabric` check: what an InfiniBand / RoCE port must look like, and which
// counter growth is a finding. Pure logic over two snapshots (core/rules/fabric_snapshot.hpp), so it
// is tested on recorded sysfs trees without an HCA.
//
//   params (suite YAML), every key optional:
//     root: /                     # where sysfs and procfs are (tests point it at a recorded tree)
//     hcas: [mlx5_0, mlx5_1]      # judge only these; a listed HCA that is absent fails
//     ignore: [mlx5_4, mlx5_5/2]  # never judged (a management NIC, an unused second port)
//     expect_hcas: 8              # fewer HCAs in scope fails (fabric.hca_missing)
//     expect_rate_gbps: 400       # every port at this rate (or faster)
//     expect_width: 4X
//     expect_link_layer: InfiniBand
//     expect_fw: 28.39.1002       # every HCA on this firmware
//     ports_equal: true           # without expect_rate/width: every ACTIVE port of one link
//                                 # layer at the rate and width of the fastest one
//     gpudirect: record           # record | required (nvidia_peermem or the dma-buf path)
//     counters: [symbol_error, link_downed, ...]   # default: kFabricErrorCounters
//     window_s: 2                 # the check's own before/after window
//
// Findings (severity): fabric.hca_missing (fail), fabric.port_down (fail: state not ACTIVE),
// fabric.phys_state (fail: ACTIVE but not LinkUp), fabric.rate_degraded (fail: below
// expect_rate_gbps or not expect_width), fabric.rate_mismatch (fail: slower or narrower than
// the other ports, ports_equal), fabric.link_layer (fail), fabric.firmware (fail: not
// expect_fw), fabric.firmware_mismatch (warn: HCAs of one type on different firmware),
// fabric.counter_grew (the counter's severity in kFabricErrorCounters), fabric.gpudirect
// (fail when required, info otherwise).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/record/record.hpp"
#include "core/rules/fabric_snapshot.hpp"

namespace gpuqual {

// One error counter of ports/<n>/counters/ and what its growth means.
struct FabricCounterRule {
  std::string_view name;
  Severity growth;
  std::string_view meaning;
};
// The error counters of Documentation/ABI/stable/sysfs-class-infiniband, with the severity of
// any growth during the window (table and reasons in core/rules/fabric_rules.cpp).
std::span<const FabricCounterRule> fabric_error_counters();

enum class GpuDirectPolicy { record, required };

struct FabricExpectations {
  std::string root = "/";
  std::vector<std::string> hcas;
  std::vector<std::string> ignore;
  std::optional<int> expect_hcas;
  std::optional<double> rate_gbps;
  std::string width;
  std::string link_layer;
  std::string fw_ver;
  bool ports_equal = true;
  GpuDirectPolicy gpudirect = GpuDirectPolicy::record;
  std::vector<std::string> counters;  // filled with every fabric_error_counters() name by default
  double window_s = 2;
};

// Throws InputError(origin, "$.expect_width", problem).
FabricExpectations parse_fabric_params(const nlohmann::json& params, const std::string& origin);

// GPUDirect RDMA readiness from the host facts: "nvidia_peermem" (the module is loaded),
// "dma-buf" (the open kernel module on Linux >= 5.12), or "" with `why` set.
std::string gpudirect_path(const GpuDirectFacts& facts, std::string* why);

struct FabricJudgement {
  Status status = Status::pass;
  std::string reason;
  std::vector<Finding> findings;
  std::vector<Metric> metrics;  // fabric.<hca>.p<n>.rate_gbps per judged port
  int hcas_judged = 0;
  int ports_judged = 0;
};

// `before` may be null (no window: counters are then not judged). `gpudirect` judged per policy.
FabricJudgement judge_fabric(const FabricSnapshot& after, const FabricSnapshot* before,
                             const GpuDirectFacts& gpudirect, const FabricExpectations& expect);

}  // namespace gpuqual
