#pragma once
// The one-line summary of a compare verdict, printed last on stdout, e.g.
//   gpuqual: FAIL node-a h200-sxm-141gb: 1 of 42 metrics failed (gemm.bf16.tflops gpu 3 -7.1% < -5.0%), 0
//   findings
#include <cstddef>
#include <string>
#include <string_view>

#include "core/judge/common_cause.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

std::string compare_summary(const Verdict& verdict, bool had_baseline);

// "<who>: FAIL node-a h200-sxm-141gb: <details>", `who` "gpuqual" (compare) or "gpuqual diff": the
// line of one node's verdict, on one line (a line break in a record's host name or class, or in a
// detail, becomes a blank).
std::string node_summary_line(std::string_view who, const Verdict& verdict, std::string_view details);

// A summary line (compare's, diff's, gate's) as stdout's last line (docs/output-formats.md,
// "Width"): while it is wider than `width`, the widest of its parenthesized details that holds
// one of the `causes` the table says once is dropped ("... not passed (health skipped: NVML
// unavailable: <cause>)"). Every other detail, the verdict and the counts stay, even when the
// line is then still wider. The JSON document's "summary" and the report files keep it whole.
std::string fit_summary(std::string line, std::size_t width, const SharedCauses& causes);

}  // namespace gpuqual
