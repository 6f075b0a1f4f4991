#pragma once
// What a check is and how it is registered (docs/architecture.md, "Conventions"): one file per check,
// registered by name with GPUQUAL_REGISTER_CHECK. A check measures and returns a CheckResult;
// it never prints, never calls exit(), and reports what it could not measure as skip/error
// with the reason. The runner runs each check in a child process with a watchdog, so a check
// may block, crash or hang without taking the run down.
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>  // an after-abort clean-up's params, passed by reference only
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

// What a check is run with: suites/check_context.hpp. Apart, so that what only lists or
// registers checks does not need nlohmann/json, which the context's params are.
struct CheckContext;

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
  std::string description;  // one line for `gpuqual list`
  bool test_only = false;   // test-only checks are never listed nor allowed in shipped suites
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
#define GPUQUAL_REGISTER_CHECK(Type, name, description)                                   \
  static const bool gpuqual_registered_##Type = ::gpuqual::CheckRegistry::instance().add( \
      ::gpuqual::CheckInfo{name, description, false, [] { return std::make_unique<Type>(); }, {}})
// The same, for a check that declares its after-abort clean-up (a function of the check's params).
#define GPUQUAL_REGISTER_CHECK_WITH_CLEANUP(Type, name, description, after_abort_fn) \
  static const bool gpuqual_registered_##Type =                                      \
      ::gpuqual::CheckRegistry::instance().add(::gpuqual::CheckInfo{                 \
          name, description, false, [] { return std::make_unique<Type>(); }, after_abort_fn})
#define GPUQUAL_REGISTER_TEST_CHECK(Type, name, description)                              \
  static const bool gpuqual_registered_##Type = ::gpuqual::CheckRegistry::instance().add( \
      ::gpuqual::CheckInfo{name, description, true, [] { return std::make_unique<Type>(); }, {}})
