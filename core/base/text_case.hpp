#pragma once
// ASCII case conversion for identifiers, statuses and hex ids (locale-independent).
#include <cctype>
#include <string>
#include <string_view>

namespace gpuqual {

inline std::string to_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

inline std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace gpuqual
