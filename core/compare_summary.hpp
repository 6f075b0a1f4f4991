#pragma once
// The one-line summary of a compare verdict, printed last on stdout, e.g.
//   gpuqual: FAIL node-a h200-sxm-141gb: 1 of 42 metrics failed (gemm.bf16.tflops gpu 3 -7.1% < -5.0%), 0 findings
#include <cstddef>
#include <string>

#include "core/verdict.hpp"

namespace gpuqual {

std::string compare_summary(const Verdict& verdict, bool had_baseline);

// A summary line (compare's, diff's, gate's) in at most `width` display columns, as stdout's
// last line (docs/output-formats.md, "Width"): while it is too wide, its widest parenthesized
// detail is shortened ("(health skipped: NVML unavai…)"), or dropped when too little of it would
// be left. The verdict and its counts are never cut: a line that is still too wide (a very long
// hostname) stays so. The JSON document's "summary" and the report files keep the whole line.
std::string fit_summary(std::string line, std::size_t width);

}  // namespace gpuqual
