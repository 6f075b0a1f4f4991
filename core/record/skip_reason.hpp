#pragma once
// Reason codes of a skip that is *not applicable* to the hardware: the one kind of skip that may
// sit in a passing verdict. A check sets the code together with its skip; a skip without one (or
// with a code not in this table) means "could not measure" (no NVML, no driver, no GPU visible)
// and makes the verdict inconclusive. The table is documented in README.md ("Statuses");
// adding a code there and here is a decision that the situation can never be
// measured on that hardware, not a way to silence a check.
//
// This is the table a record is read against; whether a code holds for the record that carries
// it is judged in core/verdict/skip_acceptance.hpp.
#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace gpuqual {

struct NotApplicableCode {
  std::string_view code;
  std::string_view meaning;
  std::array<std::string_view, 2> checks;  // the checks that set it ("" pads)
};

// The table's row for `code`; null for a code a record may not carry in `reason_code`.
const NotApplicableCode* find_not_applicable_code(std::string_view code);
bool is_not_applicable_code(std::string_view code);

// The compute capability (major, minor) the GEMM precision `name` ("fp8") needs: {0, 0} for FP64
// and FP32, nullopt for a name gpuqual does not run. The GEMM check skips by it as well
// (device/gemm/gemm_precision.cpp), so the run and the judging of precision_unsupported agree.
std::optional<std::pair<int, int>> gemm_precision_need(std::string_view name);

}  // namespace gpuqual
