#include "probes/slug.hpp"

namespace gpuqual::probes {

std::string slug(const std::string& text) {
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  std::string out;
  for (char c : text) {
    if (out.size() >= 40) break;
    if (alnum(c)) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    } else if (c == '_' || c == '-') {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "x" : out;
}

}  // namespace gpuqual::probes
