#pragma once
// Reason codes of a skip that is *not applicable* to the hardware: the one kind of skip that may
// sit in a passing verdict. A check sets the code together with its skip; a skip without one (or
// with a code not in this table) means "could not measure" (no NVML, no driver, no GPU visible)
// and makes the verdict inconclusive. The table is documented in README.md ("Statuses");
// adding a code there and here is a decision that the situation can never be
// measured on that hardware, not a way to silence a check.
//
// A code counts only from the checks that set it, and only when the record's own inventory
// agrees (one GPU for single_gpu, a pre-Ampere GPU for row_remap_unsupported, ...): a record
// cannot excuse a check by writing a code (docs/compare.md, "No false pass").
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/record/record.hpp"

namespace gpuqual {

struct NotApplicableCode {
  std::string_view code;
  std::string_view meaning;
  std::array<std::string_view, 2> checks;  // the checks that set it ("" pads)
};

// Every code a record may carry in `reason_code`.
std::span<const NotApplicableCode> not_applicable_codes();
bool is_not_applicable_code(std::string_view code);

// Why the not-applicable `code` of `check` at scope `gpu` (an index of `r`, or the node) is not
// accepted: another check set it, or the record's inventory says the hardware has what the code
// says it lacks. nullopt: the code holds. An unknown code is never accepted.
std::optional<std::string> not_applicable_refusal(const RunRecord& r, const CheckResult& check,
                                                  std::string_view code, const std::optional<int>& gpu);

// The compute capability (major, minor) the GEMM precision `name` ("fp8") needs: {0, 0} for FP64
// and FP32, nullopt for a name gpuqual does not run. The GEMM check skips by it as well
// (device/gemm_precision.cpp), so the run and the judging of precision_unsupported agree.
std::optional<std::pair<int, int>> gemm_precision_need(std::string_view name);

// The skip is allowed in a passing verdict: a not-applicable code that holds (above), or a check
// the suite (`optional: true`, recorded on the check) or the baseline marks optional.
bool skip_is_acceptable(const RunRecord& r, const CheckResult& check, const std::optional<int>& gpu,
                        std::string_view reason_code, bool baseline_optional);

}  // namespace gpuqual
