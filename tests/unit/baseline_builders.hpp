#pragma once
// Hand-made baselines in tests say what their records run (`checks:`): a record of a suite gpuqual
// cannot find ("synthetic", make_record) judged against a baseline that requires no check must
// hold every core check (core/judge/compare_requirements.cpp), which most tests' records do not.
#include <string>

#include "core/baseline/baseline.hpp"

namespace gpuqual::testing {

// Requires the check of each of `b`'s required metrics (gemm for gemm.bf16.tflops,
// nccl_allreduce for nccl.allreduce.*), as a hand-made baseline of a custom suite would.
inline Baseline require_metric_checks(Baseline b) {
  for (const MetricExpectation& e : b.metrics) {
    if (!e.required) continue;
    const std::string check = e.name.substr(0, e.name.find('.'));
    b.checks[check == "nccl" ? "nccl_allreduce" : check].required = true;
  }
  return b;
}

}  // namespace gpuqual::testing
