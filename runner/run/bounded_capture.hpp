#pragma once
// Keeps the start and the end of a child's output, whatever its size: a check that writes
// gigabytes costs the parent head + 2 × tail bytes of memory, and the record still shows how
// the output began and how it ended.
#include <cstddef>
#include <string>
#include <string_view>

namespace gpuqual {

class BoundedCapture {
 public:
  explicit BoundedCapture(std::size_t head_bytes = 4096, std::size_t tail_bytes = 16384);
  void append(std::string_view data);
  std::size_t total_bytes() const { return total_; }
  // Head, a marker with the number of bytes left out, and the tail.
  std::string text() const;
  // The last `max_bytes` of the output (cut at a line start when one is near), for a reason.
  std::string tail(std::size_t max_bytes) const;
  // Memory held right now (for the bound test).
  std::size_t held_bytes() const { return head_.size() + tail_.size(); }

 private:
  std::size_t head_cap_, tail_cap_;
  std::string head_, tail_;
  std::size_t total_ = 0;
};

// Makes arbitrary bytes safe for a one-line JSON string: invalid UTF-8 and control characters
// (other than newline and tab) become '?'.
std::string printable_text(std::string_view bytes);

}  // namespace gpuqual
