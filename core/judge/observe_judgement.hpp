#pragma once
// The verdict observe builds while it judges (core/judge/observe.hpp): the rows and the reasons
// of each kind, decided at the end by decide_outcome as compare, diff and gate decide.
#include <string>
#include <vector>

#include "core/verdict/verdict.hpp"

namespace gpuqual::observe {

struct Judgement {
  Verdict v;
  std::vector<std::string> fails;
  std::vector<std::string> unjudged;
  std::vector<std::string> warns;
  std::vector<std::string> notes;

  // A reason of the list that goes with `s` (fail → fails, error/skip → unjudged, warn → warns).
  void reason(Status s, const std::string& text);
  void check(const std::string& name, Status s, const std::string& text);
};

}  // namespace gpuqual::observe
