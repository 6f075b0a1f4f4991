#pragma once
// How a count reads in a sentence: "1 node", "3 nodes", "0 findings". One spelling for every
// summary line and reason, so that "1 nodes" cannot creep in where a copy forgot the test.
#include <concepts>
#include <string>
#include <string_view>

namespace gpuqual {

// The ending of a regular English noun after the count n: "" for one, "s" for any other count.
// For text where the count and the noun stand apart ("{} of {} expected GPU{}").
template <std::integral N>
constexpr const char* plural_s(N n) {
  return n == 1 ? "" : "s";
}

// The count and its noun: plural(1, "node") is "1 node", plural(3, "passing run") "3 passing runs".
template <std::integral N>
std::string plural(N n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + plural_s(n);
}

}  // namespace gpuqual
