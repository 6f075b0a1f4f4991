#pragma once
// Generated run records for the cross-command property tests
// (tests/unit/test_cross_command_properties.cpp): healthy records of every kind of node gpuqual
// judges, and every mutation of them that must never pass. Deterministic: one seed gives the
// same records, and a failing case names its shape, node and mutation.
//
// Keep it whole. Every surface a record can carry that a judge must see belongs here, so each new
// one is tried by every command at once:
//   - a new kind of unit (a GPU partitioning, a virtualization mode): a NodeShape, built healthy
//     in healthy_record();
//   - a new piece of evidence the record holds (an inventory field a judge must read, a status of
//     its own): a Mutation that flips it to failing, in mutate() and kMutations;
//   - a new identity (a UUID, a place): a Mutation that duplicates or drops it;
//   - a new grouping of nodes the pool commands judge (a rack): a NodeSpec whose nodes share it.
// A mutation whose rule lands on another branch is listed in kAwaitingOtherBranches (with the
// rule), so the test keeps generating it and asserts it once that branch is merged.
#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual::testing {

// The kinds of node: whole GPUs, MIG (mixed, all GPUs in MIG mode, compute instances narrower
// than their GPU instance) and vGPU guests.
enum class NodeShape { whole_gpu, mig_mixed, mig_all, mig_compute_instances, vgpu };

struct NodeSpec {
  std::string name;  // the shape's name in test output: "mig-mixed-h200x2"
  NodeShape shape = NodeShape::whole_gpu;
  std::string product;  // NVML name: "NVIDIA H200"
  std::uint64_t memory_mib = 0;
  int gpus = 1;
  // A node of a multi-node NVLink rack (GB200 NVL72): GFD's clique label, every node of the shape
  // in one rack, so gate and matrix judge them as a rack (core/record/rack.hpp).
  bool rack = false;
};

// gtest prints a shape by its name.
inline void PrintTo(const NodeSpec& spec, std::ostream* os) { *os << spec.name; }

// The shapes the property tests generate: several classes and GPU counts.
std::vector<NodeSpec> node_specs();

enum class Mutation {
  gpu_dropped,              // a GPU is gone from the record (the node's sources still count it)
  check_failed,             // a check's status is fail (one record per check of the record)
  unit_status_failed,       // one per-GPU or per-MIG-device status of a check is fail
  unrequired_check_failed,  // a check neither the suite nor the baseline requires (optional) failed
  stack_check_failed,       // the inventory's own evidence, node.stack.stack_check, says fail
  gpu_uuid_duplicated,      // two GPUs under one UUID
  mig_uuid_duplicated,      // two MIG devices under one UUID
  required_check_removed,   // a check the class requires is not in the record (one per check)
  class_relabelled,         // the record states another class than its GPUs give
  mig_profile_relabelled,   // a GPU instance states another profile than its size
  mig_skip_on_whole_gpu,    // health of a whole GPU skipped as `mig_instance` on a MIG node
  vgpu_skip_on_bare_gpu,    // health of a bare-metal GPU skipped as `vgpu_guest` beside a vGPU
  gpu_lost,                 // NVML answered GPU_IS_LOST for a GPU, recorded by health
};

const char* to_string(Mutation m);

// A mutation must never pass, from any command. Those whose rule another branch implements; the
// property test skips asserting them until the lead merges that branch and empties this list.
struct AwaitingRule {
  Mutation mutation;
  const char* rule;  // "rule 9: per-unit skip acceptance (branch mig)"
};
// Empty while every rule the generator mutates is implemented; a new surface whose rule is not
// yet in adds its mutation here, with the rule, until it is.
inline constexpr std::array<AwaitingRule, 0> kAwaitingOtherBranches{};
const char* awaiting_rule(Mutation m);  // nullptr when the mutation is asserted now

struct Mutant {
  Mutation mutation;
  std::string what;  // "check gemm failed", "GPU 1 dropped"
  RunRecord record;
};

class RecordGenerator {
 public:
  explicit RecordGenerator(std::uint32_t seed) : rng_(seed) {}

  // A healthy record of node `node` (0, 1, ...) of `spec`, from run `run` (0 before, 1 after an
  // upgrade): every GPU and MIG device measured a little above its class's healthy figures with
  // a little noise, health, gemm, hbm, pcie and p2p (or its not-applicable skip) passed, the
  // stack check passed. Node `node`'s records share their GPU UUIDs; other nodes' do not.
  RunRecord healthy_record(const NodeSpec& spec, int node, int run);

  // Every mutation of `healthy` that applies to its shape (one per check where it names one).
  std::vector<Mutant> mutants(const RunRecord& healthy);

 private:
  Metric sampled(const std::string& name, const std::string& unit, double value, std::optional<int> gpu,
                 const std::string& mig_device);
  void add_gpu_figures(const NodeSpec& spec, const GpuInfo& g, RunRecord& r);
  void add_status_mutants(const RunRecord& healthy, std::vector<Mutant>& out);
  void add_identity_mutants(const RunRecord& healthy, std::vector<Mutant>& out);
  void add_partition_mutants(const RunRecord& healthy, std::vector<Mutant>& out);
  std::mt19937 rng_;
};

}  // namespace gpuqual::testing
