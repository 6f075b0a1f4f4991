#pragma once
// Say a root cause once (docs/output-formats.md, "Shared causes"). On a node without a driver,
// every GPU check ends with the same words ("... cudaGetDeviceCount returned 35
// (cudaErrorInsufficientDriver: ...)"), behind a prefix of its own ("gemm: ...", "check hbm gpu 0
// error: ..."). The table prints such a cause once, above the rows; each row keeps its own prefix
// and names the cause by its first clause: "CUDA runtime cannot use a GPU (above)". JSON, JUnit,
// Markdown and the record keep every reason whole.
//
// A cause is what a reason says from one of its clause starts (its start, after a ": " or "; ",
// after a '(') to its end, to a "; " or " (" outside parentheses, or to the ')' of a parenthesis opened
// before it (a reason embedded as "(check gemm error: <cause>)"): the checks build their reasons
// by putting what could not be done before the cause, so the same cause is in the reason of
// every check it stopped.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

// A cause shorter than this is not worth a line of its own ("timed out", "NVML unavailable").
inline constexpr std::size_t kMinSharedCauseLength = 30;
// Rows that must hold a cause for it to be said once: two are often one failure said twice (a
// metric row and its check's row), which reads better in place.
inline constexpr std::size_t kMinSharedRows = 3;

class SharedCauses {
 public:
  // The causes found, in the order the reasons first show them.
  const std::vector<std::string>& causes() const { return causes_; }
  bool empty() const { return causes_.empty(); }
  // `reason` with each shared cause it holds replaced by a reference: "<what came before><the
  // cause's first clause> (above)", or "([2] above)" when there are several; a reason without
  // one is returned unchanged.
  std::string refer(std::string_view reason) const;
  // The lines that say the causes, to print above the table: one line "cause shared by N rows:
  // <cause>", or a heading and "  [N] <cause>" lines. Empty when there is none.
  std::vector<std::string> header() const;

 private:
  friend SharedCauses find_shared_causes(const std::vector<std::string>& reasons);
  std::vector<std::string> causes_;
};

// The causes held by at least kMinSharedRows of `reasons` (each at least kMinSharedCauseLength long, and
// longer than its label). Picked greedily: the cause the most reasons hold, the longest of those;
// then the next among what is left of the reasons, at most nine.
SharedCauses find_shared_causes(const std::vector<std::string>& reasons);

// The first clause of a cause, as rows name it: the text before its first ": " or " (", at most
// 40 columns ("CUDA runtime cannot use a GPU").
std::string cause_label(std::string_view cause);

// For lines printed one at a time (the run's progress): `reason` with its longest cause that
// any of `earlier` (what was already said in full) contains replaced by "<label> (above)";
// unchanged when none does.
std::string refer_to_earlier(std::string_view reason, const std::vector<std::string>& earlier);

}  // namespace gpuqual
