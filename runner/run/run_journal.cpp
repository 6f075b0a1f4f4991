#include "runner/run/run_journal.hpp"

#include <stdexcept>

#include "core/record/record_io.hpp"

namespace gpuqual {

RunJournal::RunJournal(std::string path, RunRecord record, bool final_only)
    : path_(std::move(path)), final_only_(final_only), record_(std::move(record)) {
  record_.complete = false;
  record_.ended_at.clear();
  for (auto& c : record_.checks) {
    const std::string name = c.name;
    c = CheckResult{};
    c.name = name;
    c.status = Status::error;
    c.reason = kNotRunReason;
  }
  done_.assign(record_.checks.size(), false);
}

bool RunJournal::write(bool final) {
  if (final_only_ && !final) return true;
  try {
    write_record(path_, record_);
    last_error_.clear();
    return true;
  } catch (const std::exception& e) {
    last_error_ = e.what();
    return false;
  }
}

void RunJournal::open() {
  if (!write()) throw std::runtime_error(last_error_);
}

void RunJournal::begin(std::size_t index, const std::string& started_at) {
  CheckResult& c = record_.checks.at(index);
  c.reason = kRunningReason;
  c.started_at = started_at;
  write();
}

void RunJournal::finish(std::size_t index, CheckResult result) {
  record_.checks.at(index) = std::move(result);
  done_.at(index) = true;
  write();
}

void RunJournal::set_pending_reason(const std::string& reason) {
  for (std::size_t i = 0; i < record_.checks.size(); ++i) {
    if (!done_[i]) record_.checks[i].reason = reason;
  }
  write();
}

void RunJournal::close(bool complete, const std::string& ended_at) {
  record_.complete = complete;
  record_.ended_at = ended_at;
  write(/*final=*/true);
}

}  // namespace gpuqual
