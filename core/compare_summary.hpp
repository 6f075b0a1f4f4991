#pragma once
// The one-line summary of a compare verdict, printed last on stdout, e.g.
//   gpuqual: FAIL node-a h200-sxm-141gb: 1 of 42 metrics failed (gemm.bf16.tflops gpu 3 -7.1% < -5.0%), 0 findings
#include <string>

#include "core/verdict.hpp"

namespace gpuqual {

std::string compare_summary(const Verdict& verdict, bool had_baseline);

}  // namespace gpuqual
