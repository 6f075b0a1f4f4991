#include "runner/run/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/base/text_escape.hpp"
#include "core/base/text_table.hpp"
#include "core/base/text_width.hpp"
#include "core/base/utc_time.hpp"
#include "core/judge/common_cause.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {

namespace {
constexpr double kHeartbeatS = 60;

// The live line is redrawn in place, so what counts is the terminal's own width (a line one
// column too wide wraps and every redraw then leaves a line behind); $COLUMNS when it cannot say.
std::size_t terminal_width(std::FILE* out) {
  const int fd = fileno(out);
  return terminal_columns(fd).value_or(output_width(fd));
}

std::string clock_text(double s) {
  const auto t = static_cast<long long>(std::max(0.0, s));
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
                   : fmt::format("{}:{:02}", t / 60, t % 60);
}
std::string finished_head(std::size_t index, std::size_t total, const CheckResult& r) {
  return fmt::format("[{}/{}] {}: {} ({})", index + 1, total, r.name, to_string(r.status),
                     format_duration(r.duration_s));
}
}  // namespace

std::string format_gpu_list(const std::vector<int>& gpus) {
  if (gpus.empty()) return "none";
  std::vector<int> g = gpus;
  std::sort(g.begin(), g.end());
  std::string out;
  for (std::size_t i = 0; i < g.size();) {
    std::size_t j = i;
    while (j + 1 < g.size() && g[j + 1] == g[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j > i ? fmt::format("{}-{}", g[i], g[j]) : std::to_string(g[i]);
    i = j + 1;
  }
  return out;
}

double eta_s(const CheckStart& s, double elapsed_s) {
  return std::max(0.0, s.budget_s - elapsed_s) + s.later_budget_s;
}

std::string format_live_line(const CheckStart& s, double elapsed_s, const std::string& message,
                             std::size_t width) {
  std::string line =
      fmt::format("[{}/{}] {}  GPUs {}  {}/{}  ETA {}", s.index + 1, s.total, s.check, s.gpus,
                  clock_text(elapsed_s), clock_text(s.budget_s), format_duration(eta_s(s, elapsed_s)));
  if (!message.empty()) line += "  " + message;
  // Shown as it will be (escapes are wider than what they stand for), then cut to the display
  // columns: never wrap, a wrapped line cannot be redrawn; the last column stays free.
  const std::string shown = terminal_line(line);
  return std::string(prefix_of_width(shown, width > 1 ? width - 1 : 1));
}

std::string format_finished_line(std::size_t index, std::size_t total, const CheckResult& r) {
  const std::string head = finished_head(index, total, r);
  return r.reason.empty() ? head : head + ": " + r.reason;
}

bool stderr_is_live_terminal() {
  if (!isatty(STDERR_FILENO)) return false;
  const char* term = std::getenv("TERM");
  return term && *term && std::strcmp(term, "dumb") != 0;
}

ProgressDisplay::ProgressDisplay(std::FILE* out, bool live, Verbosity verbosity)
    : out_(out), tty_(live), live_(live && verbosity != Verbosity::quiet), verbosity_(verbosity) {}

ProgressDisplay::~ProgressDisplay() { clear_live(); }

void ProgressDisplay::clear_live() {
  if (live_shown_) {
    std::fputs("\r\033[K", out_);
    live_shown_ = false;
    std::fflush(out_);
  }
}

void ProgressDisplay::emit(const std::string& raw) {
  clear_live();
  const std::string line = escape_controls(raw, /*keep_newlines=*/false);  // node strings, check output
  if (tty_) {
    // A person reads this terminal: a long line wraps at a word, indented under its start.
    std::fprintf(out_, "%s\n", wrap_lines(line, terminal_width(out_)).c_str());
  } else {
    // Job logs interleave many pods: every line says when, and that it is gpuqual.
    std::fprintf(out_, "%s gpuqual: %s\n", utc_now_rfc3339().c_str(), line.c_str());
  }
  std::fflush(out_);
}

void ProgressDisplay::info(const std::string& line) {
  if (verbosity_ == Verbosity::quiet) return;
  emit(line);
  said_.push_back(line);
}

void ProgressDisplay::result(const std::string& head, const std::string& reason) {
  if (verbosity_ == Verbosity::quiet) return;
  // A cause said in full on an earlier line is named by its first clause (docs/run.md,
  // "Progress"): without a driver, ten checks end with the same words.
  emit(reason.empty() ? head : head + ": " + refer_to_earlier(reason, said_));
  said_.push_back(reason);
}

void ProgressDisplay::detail(const std::string& line) {
  if (verbosity_ == Verbosity::verbose) emit(line);
}

void ProgressDisplay::warning(const std::string& line) { emit("warning: " + line); }

void ProgressDisplay::check_started(const CheckStart& start) {
  current_ = start;
  last_message_.clear();
  last_heartbeat_s_ = 0;
  if (!live_) {
    info(fmt::format("[{}/{}] {}: started (GPUs {}, budget {}, timeout {})", start.index + 1, start.total,
                     start.check, start.gpus, format_duration(start.budget_s),
                     format_duration(start.timeout_s)));
  }
  tick(0);
}

void ProgressDisplay::check_progress(const std::string& message) {
  last_message_ = message;
  if (current_)
    detail(fmt::format("[{}/{}] {}: {}", current_->index + 1, current_->total, current_->check, message));
}

void ProgressDisplay::tick(double elapsed_s) {
  if (!current_ || verbosity_ == Verbosity::quiet) return;
  if (live_) {
    const std::string shown = format_live_line(*current_, elapsed_s, last_message_, terminal_width(out_));
    std::fprintf(out_, "\r\033[K%s", shown.c_str());
    std::fflush(out_);
    live_shown_ = true;
  } else if (elapsed_s - last_heartbeat_s_ >= kHeartbeatS) {
    last_heartbeat_s_ = elapsed_s;
    std::string line = fmt::format("[{}/{}] {}: running for {}, ETA {}", current_->index + 1, current_->total,
                                   current_->check, format_duration(elapsed_s),
                                   format_duration(eta_s(*current_, elapsed_s)));
    if (!last_message_.empty()) line += " (" + last_message_ + ")";
    emit(line);
  }
}

void ProgressDisplay::check_finished(std::size_t index, std::size_t total, const CheckResult& result) {
  current_.reset();
  this->result(finished_head(index, total, result), result.reason);
}

}  // namespace gpuqual
