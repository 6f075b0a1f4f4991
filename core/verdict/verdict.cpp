#include "core/verdict/verdict.hpp"

#include "core/verdict/verdict_action.hpp"

namespace gpuqual {

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::pass:
      return "pass";
    case Outcome::warn:
      return "warn";
    case Outcome::fail:
      return "fail";
    case Outcome::inconclusive:
      return "inconclusive";
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
    case Outcome::pass:
      return kExitPass;
    case Outcome::warn:
      return strict ? kExitFail : kExitPass;
    case Outcome::fail:
      return kExitFail;
    case Outcome::inconclusive:
      return kExitInconclusive;
  }
  return kExitInconclusive;  // an unknown outcome is never a pass
}

void decide_outcome(Verdict& v, const std::vector<std::string>& fails,
                    const std::vector<std::string>& unjudged, const std::vector<std::string>& warns,
                    const std::vector<std::string>& notes, bool strict) {
  if (!fails.empty()) {
    v.outcome = Outcome::fail;
  } else if (!unjudged.empty()) {
    v.outcome = Outcome::inconclusive;
  } else if (!warns.empty()) {
    v.outcome = strict ? Outcome::fail : Outcome::warn;
  } else {
    v.outcome = Outcome::pass;
  }
  if (strict && v.outcome == Outcome::fail && fails.empty())
    v.reasons.push_back("--strict: warnings count as failures");
  for (const auto* list : {&fails, &unjudged, &warns, &notes})
    v.reasons.insert(v.reasons.end(), list->begin(), list->end());
  v.exit_code = exit_code_for(v.outcome, strict);
  assign_actions(v);
}

}  // namespace gpuqual
