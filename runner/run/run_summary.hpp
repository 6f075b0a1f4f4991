#pragma once
// One-line summaries for the runs that `compare` does not judge: a run stopped by a signal, and
// a run with --baseline none. Same shape as compare's ("gpuqual: OUTCOME host class: ..."),
// printed last on stdout.
#include <string>

#include "core/record/record.hpp"

namespace gpuqual {

// "3 pass, 1 skip, 2 error" in the order fail, error, skip, warn, pass.
std::string status_counts(const RunRecord& record);

// exit 2 always: a stopped run judged nothing.
std::string interrupted_summary(const RunRecord& record, const std::string& cause, std::size_t finished,
                                std::size_t planned, const std::string& record_path);

// --baseline none: exit 1 when a check failed (the node is wrong whatever the baseline), else 2:
// nothing was judged against what this class should measure.
int unjudged_exit_code(const RunRecord& record);
std::string unjudged_summary(const RunRecord& record, const std::string& record_path);

// The record could not be written at the end: exit 1 when a check failed, else 2.
std::string unwritten_summary(const RunRecord& record, const std::string& problem);

}  // namespace gpuqual
