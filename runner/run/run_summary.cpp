#include "runner/run/run_summary.hpp"

#include <fmt/format.h>

#include <array>

namespace gpuqual {

namespace {

std::string head(const RunRecord& r, const char* outcome) {
  return fmt::format("gpuqual: {} {} {}:", outcome,
                     r.node.hostname.empty() ? "(no hostname)" : r.node.hostname,
                     r.hardware_class.slug.empty() ? "unknown" : r.hardware_class.slug);
}

const CheckResult* first_with(const RunRecord& r, Status s) {
  for (const auto& c : r.checks) {
    if (c.status == s) return &c;
  }
  return nullptr;
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

std::string status_counts(const RunRecord& record) {
  constexpr std::array<Status, 5> kOrder{Status::fail, Status::error, Status::skip, Status::warn,
                                         Status::pass};
  std::string out;
  for (Status s : kOrder) {
    std::size_t n = 0;
    for (const auto& c : record.checks) n += c.status == s;
    if (n) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, to_string(s));
  }
  return out.empty() ? "no checks" : out;
}

std::string interrupted_summary(const RunRecord& record, const std::string& cause, std::size_t finished,
                                std::size_t planned, const std::string& record_path) {
  // The counts are of the record's results, which can be more than the suite's checks (the
  // run-wide Xid watch adds one, an unfinished check is recorded as error): say how many, so the
  // counts add up to the number they are of.
  return one_line(fmt::format("{} run interrupted ({}) after {} of {} checks; {} results: {}; record {}",
                              head(record, "INCONCLUSIVE"), cause, finished, planned, record.checks.size(),
                              status_counts(record), record_path));
}

int unjudged_exit_code(const RunRecord& record) { return first_with(record, Status::fail) ? 1 : 2; }

std::string unjudged_summary(const RunRecord& record, const std::string& record_path) {
  const CheckResult* failed = first_with(record, Status::fail);
  std::string line = fmt::format("{} not judged against a baseline (--baseline none); {} checks: {}",
                                 head(record, failed ? "FAIL" : "INCONCLUSIVE"), record.checks.size(),
                                 status_counts(record));
  if (failed) line += fmt::format(" ({} fail: {})", failed->name, failed->reason);
  line += fmt::format("; record {}", record_path);
  return one_line(line);
}

std::string unwritten_summary(const RunRecord& record, const std::string& problem) {
  const CheckResult* failed = first_with(record, Status::fail);
  return one_line(fmt::format("{} the run record could not be written ({}); {} checks: {}",
                              head(record, failed ? "FAIL" : "INCONCLUSIVE"), problem, record.checks.size(),
                              status_counts(record)));
}

}  // namespace gpuqual
