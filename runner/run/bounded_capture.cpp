#include "runner/run/bounded_capture.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : static_cast<char>(c));
      ++i;
      continue;
    }
    int extra = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    bool ok = extra > 0 && i + extra < s.size();
    if (ok) {
      unsigned cp = c & (0x3F >> extra);
      for (int k = 1; k <= extra && ok; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xC0) != 0x80) ok = false;
        cp = (cp << 6) | (cc & 0x3F);
      }
      const unsigned min = extra == 1 ? 0x80 : extra == 2 ? 0x800 : 0x10000;
      if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
    }
    if (!ok) {
      out.push_back('?');
      ++i;
      continue;
    }
    out.append(s.substr(i, extra + 1));
    i += extra + 1;
  }
  return out;
}

}  // namespace gpuqual
