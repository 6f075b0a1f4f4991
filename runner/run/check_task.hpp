#pragma once
// What the runner hands a check's child process, and how: one JSON file per check (the check's
// name, its CheckContext and the inventory as a partial run record, written with the record's
// own strict writer and read back with its strict reader). The child answers with one
// CheckResult JSON file. Files rather than argv/environment: a context carries the parameters
// and the whole inventory, and a file survives for post-mortem when a check misbehaves.
#include <string>

#include "core/record/record.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

struct CheckTask {
  std::string check;
  CheckContext context;  // stop_requested and progress are set by the child itself
};

// `inventory` supplies node facts, GPUs and the hardware class; its checks are not written.
std::string check_task_to_text(const std::string& check, const CheckContext& ctx, const RunRecord& inventory);
// Throws InputError naming `path`.
CheckTask read_check_task(const std::string& path);

// A child's result file: JSON of one CheckResult (core/record/record_json). Throws InputError.
CheckResult read_check_result(const std::string& path);
// Written by the child: invalid UTF-8 from a library message is replaced, never a throw.
std::string check_result_to_text(const CheckResult& result);

}  // namespace gpuqual
