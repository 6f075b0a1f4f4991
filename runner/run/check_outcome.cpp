#include "runner/run/check_outcome.hpp"

#include <fmt/format.h>

#include "runner/run/signal_names.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {

namespace {

constexpr std::size_t kTailInReason = 200;
constexpr std::size_t kTailInAttribute = 1500;

std::string last_line(const ChildOutcome& o) {
  std::string tail = printable_text(o.output.tail(kTailInReason));
  if (auto nl = tail.rfind('\n'); nl != std::string::npos) tail.erase(0, nl + 1);
  return tail;
}

std::string with_output(std::string reason, const ChildOutcome& o) {
  const std::string line = last_line(o);
  if (!line.empty()) reason += fmt::format("; last output: {}", line);
  return reason;
}

std::string seconds(double s) { return fmt::format("{:.0f}", s); }

CheckResult error(const std::string& check, std::string reason) {
  return unmeasurable(check, Status::error, std::move(reason));
}

}  // namespace

CheckResult result_from_outcome(const ChildOutcome& o, const OutcomeContext& ctx) {
  CheckResult r;
  if (!o.spawn_error.empty()) {
    r = error(ctx.check, fmt::format("could not start the check process: {}", o.spawn_error));
  } else if (o.stopped) {
    if (ctx.reported) {
      r = *ctx.reported;  // the check ended early on the stop request and said so itself
    } else {
      r = error(ctx.check, fmt::format("run interrupted ({}) while this check was running, after {}",
                                       ctx.stop_cause.empty() ? "stop requested" : ctx.stop_cause,
                                       format_duration(o.elapsed_s)));
    }
  } else if (o.timed_out) {
    std::string reason = fmt::format("timed out after {} s ({})", seconds(ctx.timeout_s), ctx.timeout_source);
    reason += o.killed ? fmt::format("; it did not end within {} s of SIGTERM and was killed with SIGKILL",
                                     seconds(ctx.grace_s))
                       : "; it ended on SIGTERM";
    if (ctx.reported) {
      // Keep what it measured, but a timed-out check is never anything but error.
      r = *ctx.reported;
      reason += fmt::format("; the check had reported {}{}{}", to_string(r.status),
                            r.reason.empty() ? "" : ": ", r.reason);
      r.status = Status::error;
      r.reason = reason;
    } else {
      r = error(ctx.check, with_output(reason, o));
    }
  } else if (o.term_signal) {
    if (ctx.reported && ctx.result_problem.empty()) {
      // It wrote a valid result and crashed afterwards (a library's teardown at exit): the
      // measurement stands; the crash is recorded next to it.
      r = *ctx.reported;
      r.attributes["runner.exit"] =
          fmt::format("killed by {} after writing its result", describe_signal(*o.term_signal));
    } else {
      r = error(ctx.check,
                with_output(fmt::format("crashed: killed by {}", describe_signal(*o.term_signal)), o));
    }
  } else if (!ctx.result_problem.empty()) {
    r = error(ctx.check, fmt::format("returned an invalid result: {}", ctx.result_problem));
  } else if (!ctx.reported) {
    const int code = o.exit_code.value_or(-1);
    r = error(ctx.check, with_output(code == 0 ? std::string("exited without writing a result")
                                               : fmt::format("exited with status {} without a result", code),
                                     o));
  } else {
    r = *ctx.reported;
    if (o.exit_code.value_or(0) != 0) {
      r.attributes["runner.exit"] =
          fmt::format("exited with status {} after writing its result", *o.exit_code);
    }
  }

  r.name = ctx.check;
  r.started_at = ctx.started_at;
  r.duration_s = o.elapsed_s;
  if (o.output.total_bytes() > 0) {
    r.attributes["runner.output_bytes"] = std::to_string(o.output.total_bytes());
    if (r.status != Status::pass && r.status != Status::warn) {
      r.attributes["runner.output_tail"] = printable_text(o.output.tail(kTailInAttribute));
    }
  }
  if (!o.orphans_killed.empty()) {
    r.attributes["runner.orphans_killed"] = std::to_string(o.orphans_killed.size());
  }
  if (!o.orphans_unkillable.empty()) {
    std::string pids;
    for (int p : o.orphans_unkillable) pids += (pids.empty() ? "" : " ") + std::to_string(p);
    r.attributes["runner.orphans_unkillable"] = pids;
  }
  return r;
}

}  // namespace gpuqual
