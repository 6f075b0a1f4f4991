#include "runner/run/bounded_capture.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/text_escape.hpp"

namespace gpuqual {

BoundedCapture::BoundedCapture(std::size_t head_bytes, std::size_t tail_bytes)
    : head_cap_(head_bytes), tail_cap_(tail_bytes) {}

void BoundedCapture::append(std::string_view data) {
  total_ += data.size();
  if (head_.size() < head_cap_) {
    const std::size_t n = std::min(head_cap_ - head_.size(), data.size());
    head_.append(data.substr(0, n));
    data.remove_prefix(n);
  }
  if (data.empty()) return;
  if (data.size() >= tail_cap_) {
    tail_.assign(data.substr(data.size() - tail_cap_));
    return;
  }
  tail_.append(data);
  // Trim lazily (at twice the cap) so appends stay amortised O(n).
  if (tail_.size() > 2 * tail_cap_) tail_.erase(0, tail_.size() - tail_cap_);
}

std::string BoundedCapture::text() const {
  const std::size_t shown_tail = std::min(tail_.size(), tail_cap_);
  const std::size_t omitted = total_ - head_.size() - shown_tail;
  std::string out = head_;
  if (omitted > 0) out += fmt::format("\n[... {} bytes omitted ...]\n", omitted);
  out.append(tail_, tail_.size() - shown_tail, shown_tail);
  return out;
}

std::string BoundedCapture::tail(std::size_t max_bytes) const {
  // Without a gap, head and tail together are the whole output.
  std::string all = total_ == head_.size() + tail_.size() ? head_ + tail_ : tail_;
  while (!all.empty() && (all.back() == '\n' || all.back() == '\r' || all.back() == ' ')) all.pop_back();
  if (all.size() <= max_bytes) return all;
  std::string cut = all.substr(all.size() - max_bytes);
  // Start at a line boundary when one is in the first quarter, so the text does not begin
  // mid-word.
  if (auto nl = cut.find('\n'); nl != std::string::npos && nl < max_bytes / 4) cut.erase(0, nl + 1);
  return cut;
}

std::string printable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_sequence(s, i, cp);  // core/base/text_escape.hpp: 0 when not UTF-8
    if (n == 0 || (cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f) {
      out.push_back('?');
    } else {
      out.append(s.substr(i, n));
    }
    i += n == 0 ? 1 : n;
  }
  return out;
}

}  // namespace gpuqual
