#pragma once
// The words of a gate verdict: its one-line summary (printed last on stdout). The pool table
// shown above the report is the table reporter's (render_pool_table, runner/reporters/reporters.hpp).
#include <cstddef>
#include <string>

#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct GateCounts {
  std::size_t failed = 0, inconclusive = 0, warned = 0, passed = 0;
  std::size_t duplicates = 0;
  std::size_t max_failed = 0;
  std::size_t unreadable = 0;  // records that could not be read (their nodes are `error`)
};

// "gpuqual gate: FAIL 8 nodes (h200-sxm-141gb): 1 failed (node-c: reset_gpu), 7 passed; pool: 1 of 5
//  metrics regressed (hbm.triad.gbps -4.1% < -2.0%); action: reset_gpu; 1 duplicate record ignored"
// (each failed node's action and the pool's, docs/actions.md)
std::string gate_summary(const Verdict& gate, const GateCounts& counts);

}  // namespace gpuqual
