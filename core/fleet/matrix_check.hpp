#pragma once
// `gpuqual matrix check --target FILE [--matrix FILE] [--class C]`: for each class, is the target
// stack known-good, known-bad or never qualified in the fleet's matrix, and does it break a
// shipped rule (docs/matrix.md)?
//   CUDA <-> driver      baselines/cuda-compat.yaml (full, minor-version and forward compatibility)
//   driver branch        baselines/driver-branches.yaml: the class's architecture (its compute
//                        capability from the matrix) needs at least min_driver and at most its
//                        last branch; the branch's kind and end of life on `as_of`
//   GPU Operator         baselines/gpu-operator.yaml: the target's Kubernetes version in the
//                        release's range, the Operator's support state, its default driver
// Exit per class: 1 a rule is broken or the class is known-bad on the target, 2 the class never
// qualified it (no matching row, or only mixed/unqualified rows), 0 known-good and no rule
// broken. A class the target names no component for is not-targeted (said, not counted; nothing
// targeted at all is 2). Where the sources disagree (an end of life, a Kubernetes range) the line says so and
// does not decide on it.
#include <string>
#include <vector>

#include "core/compat/cuda_compat.hpp"
#include "core/compat/platform_rules.hpp"
#include "core/fleet/matrix.hpp"
#include "core/verdict/target.hpp"

namespace gpuqual {

struct PlatformRules {
  CudaCompatTable cuda;
  DriverBranchTable branches;
  GpuOperatorTable gpu_operator;
};
// The three tables from a baselines directory (baselines_dir()): InputError (exit 3) when one
// is missing or bad.
PlatformRules load_platform_rules(const std::string& dir);

struct RuleOutcome {
  std::vector<std::string> broken;  // each: which rule and why, with the table it came from
  std::vector<std::string> notes;   // disagreements, unknowns, deprecations: said, not decided
};

// The rules alone, for one class (compute capability and product may be empty: unknown).
RuleOutcome check_rules(const std::map<std::string, ComponentRule>& target,
                        const std::string& compute_capability, const std::string& gpu_product,
                        const PlatformRules& rules, const std::string& as_of);

struct ClassCheck {
  std::string hardware_class;
  std::string state;  // known-good, known-bad, mixed, unqualified, never-qualified, not-targeted
  int exit_code = 2;
  std::string line;  // "h200-sxm-141gb: known-good: ...; rules: ..."
  RuleOutcome rules;
};

struct MatrixCheck {
  std::vector<ClassCheck> classes;
  int exit_code = 2;
};

// `matrix` may be null (no matrix: every class is never qualified). `classes` empty: every class
// of the matrix and of the target's `classes:`.
MatrixCheck check_target(const Target& target, const Matrix* matrix, const PlatformRules& rules,
                         const std::vector<std::string>& classes, const std::string& as_of);

// Whether a matrix row is on the target: every component the target names for the class is in
// the row's stack and satisfies the rule.
bool row_on_target(const MatrixRow& row, const std::map<std::string, ComponentRule>& rules);

}  // namespace gpuqual
