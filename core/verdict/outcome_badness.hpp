#pragma once
// How bad a verdict's outcome is, where one of several records must be believed (two records of
// one run in the matrix, a node's runs in gate): fail 3, inconclusive 2, warn 1, pass 0. The
// record that says less is never the one believed.
#include "core/verdict/verdict.hpp"

namespace gpuqual {

inline int outcome_badness(Outcome o) {
  switch (o) {
    case Outcome::fail:
      return 3;
    case Outcome::inconclusive:
      return 2;
    case Outcome::warn:
      return 1;
    case Outcome::pass:
      return 0;
  }
  return 2;
}

}  // namespace gpuqual
