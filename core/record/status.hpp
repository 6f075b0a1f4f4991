#pragma once
// The five statuses of a check, a metric row or a whole verdict (docs/architecture.md, "Statuses").
// fail: the hardware or stack is wrong. error: the harness could not measure.
// skip: not applicable, always with a reason. Neither skip nor error ever rolls up to pass.
#include <optional>
#include <string_view>

namespace gpuqual {

enum class Status { pass, warn, fail, skip, error };

std::string_view to_string(Status s);
std::optional<Status> parse_status(std::string_view text);

// Severity order used by roll-ups: fail > error > skip > warn > pass. fail outranks error so
// that a real fault is never hidden behind an unrelated measurement problem.
int severity_rank(Status s);
Status worse_of(Status a, Status b);

// The exit code of one status standing alone (a probe, a multi-node run): pass and warn 0, fail 1,
// skip and error 2, since what did not run is never a pass.
int exit_code_of(Status s);

}  // namespace gpuqual
