#pragma once
// Whether a skip may sit in a passing verdict. A not-applicable code (core/record/skip_reason.hpp)
// counts only from the checks that set it, and only when the record's own inventory agrees (one
// GPU for single_gpu, a pre-Ampere GPU for row_remap_unsupported, ...): a record cannot excuse a
// check by writing a code (docs/compare.md, "No false pass").
#include <optional>
#include <string>
#include <string_view>

#include "core/record/record.hpp"

namespace gpuqual {

// Why the not-applicable `code` of `check` at scope `gpu` (an index of `r`, or the node) is not
// accepted: another check set it, or the record's inventory says the hardware has what the code
// says it lacks. nullopt: the code holds. An unknown code is never accepted.
std::optional<std::string> not_applicable_refusal(const RunRecord& r, const CheckResult& check,
                                                  std::string_view code, const std::optional<int>& gpu);

// The skip is allowed in a passing verdict: a not-applicable code that holds (above), or a check
// the suite (`optional: true`, recorded on the check) or the baseline marks optional.
bool skip_is_acceptable(const RunRecord& r, const CheckResult& check, const std::optional<int>& gpu,
                        std::string_view reason_code, bool baseline_optional);

}  // namespace gpuqual
