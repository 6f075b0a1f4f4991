#pragma once
// NVIDIA_REQUIRE_* expressions as the NVIDIA Container Toolkit reads them (libnvidia-container
// src/cli/dsl.c; toolkit internal/requirements): terms separated by spaces are ORed, conditions
// separated by commas inside a term are ANDed, a condition is <property><op><value> with op one
// of = != < <= > >=, properties cuda, driver, arch (versions) and brand (a name, = and != only,
// case-insensitive). Example (nvidia/cuda:12.4.1):
//   cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 ...
// Public so the container probes can judge an image's requirement without starting it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/dotted_version.hpp"

namespace gpuqual {

enum class RequireOp { eq, ne, lt, le, gt, ge };
std::string_view to_string(RequireOp op);

struct RequireCondition {
  std::string property;  // cuda | driver | arch | brand
  RequireOp op = RequireOp::eq;
  std::string value;  // as written
  std::string text;   // the whole condition, as written ("driver>=470")
};

struct RequireTerm {
  std::vector<RequireCondition> conditions;
  std::string text;  // "brand=tesla,driver>=470,driver<471"
};

struct RequireExpression {
  std::vector<RequireTerm> terms;
  std::string text;
};

// Throws InputError(origin, "term N" / "term N condition M", problem) on a malformed
// expression: an unknown property, an operator brand does not take, a non-numeric version, an
// empty condition. `origin` names where the text came from ("image nvidia/cuda:12.4.1 env
// NVIDIA_REQUIRE_CUDA").
RequireExpression parse_nvidia_require(std::string_view text, const std::string& origin);

// What one GPU of the node looks like to the requirement. Empty optionals mean "unknown",
// which the toolkit treats as satisfied (a missing driver makes cuda/driver conditions pass).
struct RequireFacts {
  std::optional<DottedVersion> cuda;    // the CUDA version the driver supports (cudaDriverGetVersion)
  std::optional<DottedVersion> driver;  // the kernel driver version
  std::optional<DottedVersion> arch;    // compute capability of this GPU
  std::optional<std::string> brand;     // as libnvidia-container names it (lower case compared)
};

struct RequireOutcome {
  bool satisfied = false;
  int term = -1;  // index of the first term that held (for every GPU), -1 if none
  std::string term_text;
  // The term that held needs only a driver branch (brand/driver clauses), not cuda>=: the image
  // then runs on this driver only with forward compatibility (its cuda-compat libraries).
  bool via_branch_clause = false;
  std::string first_term;   // what the toolkit prints on refusal: only the first term
  std::string explanation;  // one sentence
};

// Evaluates once per GPU (every GPU must satisfy some term; the reported term is the one that
// held for all when there is one); with no GPU, once with arch/brand treated as satisfied.
RequireOutcome evaluate_require(const RequireExpression& expr, const std::vector<RequireFacts>& gpus);

}  // namespace gpuqual
