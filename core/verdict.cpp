#include "core/verdict.hpp"

namespace gpuqual {

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::pass: return "pass";
    case Outcome::warn: return "warn";
    case Outcome::fail: return "fail";
    case Outcome::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

std::optional<Outcome> parse_outcome(std::string_view text) {
  for (Outcome o : {Outcome::pass, Outcome::warn, Outcome::fail, Outcome::inconclusive}) {
    if (to_string(o) == text) return o;
  }
  return std::nullopt;
}

int exit_code_for(Outcome o, bool strict) {
  switch (o) {
    case Outcome::pass: return kExitPass;
    case Outcome::warn: return strict ? kExitFail : kExitPass;
    case Outcome::fail: return kExitFail;
    case Outcome::inconclusive: return kExitInconclusive;
  }
  return kExitInconclusive;  // an unknown outcome is never a pass
}

}  // namespace gpuqual
