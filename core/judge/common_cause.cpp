#include "core/judge/common_cause.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/base/text_width.hpp"

namespace gpuqual {

namespace {

// More than this many causes would make the header a second table: the rest stay in the rows.
constexpr std::size_t kMaxSharedCauses = 9;
constexpr std::size_t kLabelColumns = 40;

struct Span {
  std::size_t start = 0, end = 0;
};

// Long reasons (a check's output tail) are looked at up to here, and at most this many clause
// starts of each: a cause is a sentence, not a log; this keeps a gate over 100,000 nodes linear.
constexpr std::size_t kMaxCauseLength = 512;
constexpr std::size_t kMaxClauseStarts = 16;
// Causes are found among this many reasons (a cause shared by many rows shows early); every
// row is then shortened by them.
constexpr std::size_t kMaxReasonsSearched = 2000;

std::string_view text_of(std::string_view reason, Span s) { return reason.substr(s.start, s.end - s.start); }

// A cause says at least this much more than its label, or naming it saves nothing
// ("timed out after 120 s (watchdog)" is its own label).
constexpr std::size_t kMinSaved = 20;

bool worth_a_line(std::string_view cause) {
  return cause.size() >= kMinSharedCauseLength && cause.size() <= kMaxCauseLength &&
         cause_label(cause).size() + kMinSaved <= cause.size();
}

// Where a cause can start: the reason's start, after each ": " or "; ", and after each '('.
std::vector<std::size_t> clause_starts(std::string_view reason) {
  std::vector<std::size_t> out{0};
  for (std::size_t i = 0; i + 1 < reason.size() && out.size() < kMaxClauseStarts; ++i) {
    if ((reason[i] == ':' || reason[i] == ';') && reason[i + 1] == ' ') out.push_back(i + 2);
    if (reason[i] == '(') out.push_back(i + 1);
  }
  return out;
}

// The causes `reason` could hold, longest first: from a clause start to the reason's end, to a
// "; " or " (" outside parentheses, or to the ')' of a parenthesis opened before the start
// ("(check gemm error: <cause>)").
std::vector<Span> cause_spans(std::string_view reason) {
  std::vector<Span> out;
  for (const std::size_t b : clause_starts(reason)) {
    std::vector<std::size_t> ends;
    int depth = 0;
    std::size_t e = b;
    const std::size_t stop = std::min(reason.size(), b + kMaxCauseLength + 1);
    for (; e < stop; ++e) {
      const char c = reason[e];
      if (c == ')' && depth == 0) break;
      if (depth == 0 && e + 1 < reason.size() &&
          ((c == ';' && reason[e + 1] == ' ') || (c == ' ' && reason[e + 1] == '('))) {
        ends.push_back(e);
      }
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    }
    if (e == reason.size() || reason[e] == ')') ends.push_back(e);
    for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
      if (worth_a_line(reason.substr(b, *it - b))) out.push_back({b, *it});
    }
  }
  return out;
}

std::string replace_span(std::string_view reason, Span s, std::string_view ref) {
  return fmt::format("{}{} {}{}", reason.substr(0, s.start), cause_label(text_of(reason, s)), ref,
                     reason.substr(s.end));
}

struct Tally {
  std::size_t rows = 0;
  std::size_t times = 0;  // occurrences: a reason can say a cause twice
  std::size_t last_row = static_cast<std::size_t>(-1);
  std::size_t first_row = 0;
};

// The cause that the most reasons hold (the root: "timed out" under each "metric missing (check
// timed out)" and each "timed out"), then the one said most often, then the longest (all of the
// words they share), then the one shown first; empty when no cause is in kMinSharedRows of them.
std::string_view best_cause(const std::vector<std::vector<Span>>& spans,
                            const std::vector<std::string>& reasons) {
  std::unordered_map<std::string_view, Tally> tally;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    for (const Span& s : spans[i]) {
      Tally& t = tally[text_of(reasons[i], s)];
      ++t.times;
      if (t.last_row == i) continue;  // one reason counts once
      if (t.rows == 0) t.first_row = i;
      ++t.rows;
      t.last_row = i;
    }
  }
  std::string_view best;
  Tally best_tally;
  for (const auto& [cause, t] : tally) {
    if (t.rows < kMinSharedRows) continue;
    const bool better = t.rows != best_tally.rows     ? t.rows > best_tally.rows
                        : t.times != best_tally.times ? t.times > best_tally.times
                        : cause.size() != best.size() ? cause.size() > best.size()
                                                      : t.first_row < best_tally.first_row;
    if (better) {
      best = cause;
      best_tally = t;
    }
  }
  return best;
}

// Each reason that holds `cause` gives up the spans that overlap it (a row can hold two causes,
// not two that overlap); returns the first reason that held it.
std::size_t take_cause(std::vector<std::vector<Span>>& spans, const std::vector<std::string>& reasons,
                       std::string_view cause) {
  std::size_t first = reasons.size();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto hit = std::find_if(spans[i].begin(), spans[i].end(),
                                  [&](Span s) { return text_of(reasons[i], s) == cause; });
    if (hit == spans[i].end()) continue;
    first = std::min(first, i);
    const Span taken = *hit;
    std::erase_if(spans[i], [&](Span s) { return s.start < taken.end && taken.start < s.end; });
  }
  return first;
}

}  // namespace

std::string cause_label(std::string_view cause) {
  const std::size_t clause = std::min(cause.find(": "), cause.find(" ("));
  const std::string_view first =
      clause == std::string_view::npos || clause == 0 ? cause : cause.substr(0, clause);
  return shorten_to_width(first, kLabelColumns);
}

SharedCauses find_shared_causes(const std::vector<std::string>& reasons) {
  const std::size_t searched = std::min(reasons.size(), kMaxReasonsSearched);
  std::vector<std::vector<Span>> spans(searched);
  for (std::size_t i = 0; i < searched; ++i) spans[i] = cause_spans(reasons[i]);
  std::vector<std::pair<std::size_t, std::string>> found;  // (first reason holding it, cause)
  while (found.size() < kMaxSharedCauses) {
    std::string cause(best_cause(spans, reasons));  // a copy: the spans it came from are erased
    if (cause.empty()) break;
    const std::size_t first = take_cause(spans, reasons, cause);
    found.emplace_back(first, std::move(cause));
  }
  std::sort(found.begin(), found.end());
  SharedCauses out;
  for (auto& [first, cause] : found) out.causes_.push_back(std::move(cause));
  return out;
}

std::string SharedCauses::refer(std::string_view reason) const {
  std::string out(reason);
  for (std::size_t replaced = 0; replaced < kMaxClauseStarts; ++replaced) {
    bool again = false;
    for (const Span& s : cause_spans(out)) {
      const auto it = std::find(causes_.begin(), causes_.end(), text_of(out, s));
      if (it == causes_.end()) continue;
      const auto k = static_cast<std::size_t>(it - causes_.begin());
      out = replace_span(out, s, causes_.size() == 1 ? "(above)" : fmt::format("([{}] above)", k + 1));
      again = true;
      break;
    }
    if (!again) break;
  }
  return out;
}

std::vector<std::string> SharedCauses::header() const {
  std::vector<std::string> out;
  if (causes_.empty()) return out;
  if (causes_.size() == 1) {
    out.push_back("cause shared by several rows below (they say \"(above)\"):");
    out.push_back("  " + causes_.front());
    return out;
  }
  out.push_back("causes shared by several rows below (they say \"([N] above)\"):");
  for (std::size_t k = 0; k < causes_.size(); ++k) out.push_back(fmt::format("  [{}] {}", k + 1, causes_[k]));
  return out;
}

std::string refer_to_earlier(std::string_view reason, const std::vector<std::string>& earlier) {
  for (const Span& s : cause_spans(reason)) {
    const std::string_view cause = text_of(reason, s);
    const bool said = std::any_of(earlier.begin(), earlier.end(),
                                  [&](const std::string& e) { return e.find(cause) != std::string::npos; });
    if (said) return replace_span(reason, s, "(above)");
  }
  return std::string(reason);
}

}  // namespace gpuqual
