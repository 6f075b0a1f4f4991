#pragma once
// What a check is and how it is registered (docs/architecture.md, "Conventions"): one file per check,
// registered by name with GPUQUAL_REGISTER_CHECK. A check measures and returns a CheckResult;
// it never prints, never calls exit(), and reports what it could not measure as skip/error
// with the reason. The runner runs each check in a child process with a watchdog, so a check
// may block, crash or hang without taking the run down.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct CheckContext {
  // GPUs this check must measure (indices into `node_gpus`); empty on a GPU-less node.
  std::vector<int> gpus;
  // The inventory the parent collected: node facts and every GPU of the node.
  NodeFacts node;
  std::vector<GpuInfo> node_gpus;
  std::string hardware_class;
  // Why node_gpus is empty (the CUDA/NVML message the inventory got); "" when GPUs were found.
  // A GPU check on a GPU-less node reports skip/error with this reason.
  std::string gpu_unavailable_reason;
  // The check's parameters from the suite YAML, as JSON (sizes, precisions, durations...).
  nlohmann::json params = nlohmann::json::object();
  // Soft time budget: a check that samples stops sampling when it runs out. The watchdog's hard
  // timeout is separate and larger.
  double budget_s = 60;
  // Set when the run is being stopped (SIGTERM): long checks end early and keep what they have.
  const std::atomic<bool>* stop_requested = nullptr;
  // Optional progress sink ("gemm bf16 gpu 3: 12/40 samples"); the runner shows it on a TTY.
  std::function<void(const std::string&)> progress;
  // Directory for side files (telemetry streams): next to the record.
  // The runner creates it before the first check and removes it again if it stays empty.
  std::string side_dir;

  bool should_stop() const { return stop_requested && stop_requested->load(); }
};

class Check {
 public:
  virtual ~Check() = default;
  virtual CheckResult run(const CheckContext& ctx) = 0;
};

// What a check leaves outside its process tree when it is killed (a container in dockerd), and
// how to remove it: called by the runner after the check's child was killed, crashed or left
// orphans, with the check's parameters. Returns what was removed ("not removed: ..." entries for
// problems); never throws.
using AfterAbortCleanUp = std::function<std::vector<std::string>(const nlohmann::json& params)>;

struct CheckInfo {
  std::string name;
  std::string description;     // one line for `gpuqual list`
  bool test_only = false;      // test-only checks are never listed nor allowed in shipped suites
  std::function<std::unique_ptr<Check>()> make;
  AfterAbortCleanUp after_abort;  // empty: killing the process tree is clean-up enough
};

// The registry of every check linked into the binary.
class CheckRegistry {
 public:
  static CheckRegistry& instance();
  bool add(CheckInfo info);
  const CheckInfo* find(const std::string& name) const;
  std::vector<const CheckInfo*> all(bool include_test_only = false) const;
  // Takes a check out again (gpuqual-testbin uses it to stand in for a build without a check).
  bool remove(const std::string& name);

 private:
  std::map<std::string, CheckInfo> checks_;
};

}  // namespace gpuqual

// Registers `Type` (a Check with a default constructor) under `name`. Use once per check file.
#define GPUQUAL_REGISTER_CHECK(Type, name, description)                                          \
  static const bool gpuqual_registered_##Type = ::gpuqual::CheckRegistry::instance().add(       \
      ::gpuqual::CheckInfo{name, description, false, [] { return std::make_unique<Type>(); }, {}})
// The same, for a check that declares its after-abort clean-up (a function of the check's params).
#define GPUQUAL_REGISTER_CHECK_WITH_CLEANUP(Type, name, description, after_abort_fn)             \
  static const bool gpuqual_registered_##Type = ::gpuqual::CheckRegistry::instance().add(       \
      ::gpuqual::CheckInfo{name, description, false, [] { return std::make_unique<Type>(); }, after_abort_fn})
#define GPUQUAL_REGISTER_TEST_CHECK(Type, name, description)                                     \
  static const bool gpuqual_registered_##Type = ::gpuqual::CheckRegistry::instance().add(       \
      ::gpuqual::CheckInfo{name, description, true, [] { return std::make_unique<Type>(); }, {}})
