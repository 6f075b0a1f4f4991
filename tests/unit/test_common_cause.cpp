// Shared causes: a cause several reasons hold is said once and the rows name it (docs/output-formats.md,
// "Shared causes").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/judge/common_cause.hpp"

namespace gpuqual {
namespace {

using ::testing::ElementsAre;

const std::string kCuda =
    "CUDA runtime cannot use a GPU: cudaGetDeviceCount returned 35 (cudaErrorInsufficientDriver: CUDA driver "
    "version is insufficient for CUDA runtime version)";
const std::string kNvml =
    "libnvidia-ml.so.1 not loadable (no NVIDIA driver on this node?): libnvidia-ml.so.1: cannot open shared "
    "object file: No such file or directory";

TEST(SharedCauses, TheSameReasonOfManyRowsIsSaidOnce) {
  const SharedCauses c = find_shared_causes({kCuda, kCuda, kCuda, "planted failure"});
  ASSERT_THAT(c.causes(), ElementsAre(kCuda));
  EXPECT_EQ(c.refer(kCuda), "CUDA runtime cannot use a GPU (above)");
  EXPECT_EQ(c.refer("planted failure"), "planted failure");
  EXPECT_THAT(c.header(),
              ElementsAre("cause shared by several rows below (they say \"(above)\"):", "  " + kCuda));
}

TEST(SharedCauses, FoundBehindEachChecksOwnPrefixAndInsideParentheses) {
  // Not hard-coded text: any cause the checks put after what they could not do.
  const std::string cause =
      "fabric manager not running: nvidia-fabricmanager.service is inactive (systemctl)";
  const SharedCauses c =
      find_shared_causes({"gemm: cannot start: " + cause, "check hbm gpu 0 error: " + cause,
                          "p2p.bw missing (check p2p error: " + cause + ")", "unrelated"});
  ASSERT_THAT(c.causes(), ElementsAre(cause));
  EXPECT_EQ(c.refer("gemm: cannot start: " + cause),
            "gemm: cannot start: fabric manager not running (above)");
  EXPECT_EQ(c.refer("p2p.bw missing (check p2p error: " + cause + ")"),
            "p2p.bw missing (check p2p error: fabric manager not running (above))");
  // The summary line or a row the search did not see is shortened the same way.
  EXPECT_EQ(c.refer("x: " + cause + "; more"), "x: fabric manager not running (above); more");
}

TEST(SharedCauses, SeveralCausesAreNumberedAndARowCanHoldTwo) {
  const SharedCauses c = find_shared_causes(
      {"gemm: " + kCuda, "hbm: " + kCuda, "health: NVML unavailable: " + kNvml,
       "xid: NVML unavailable: " + kNvml, "both: " + kCuda + "; NVML unavailable: " + kNvml});
  ASSERT_EQ(c.causes().size(), 2u);
  EXPECT_EQ(c.causes()[0], kCuda);  // in the order the rows show them
  EXPECT_EQ(c.causes()[1], "NVML unavailable: " + kNvml);
  EXPECT_EQ(c.refer("gemm: " + kCuda), "gemm: CUDA runtime cannot use a GPU ([1] above)");
  EXPECT_EQ(c.refer("both: " + kCuda + "; NVML unavailable: " + kNvml),
            "both: CUDA runtime cannot use a GPU ([1] above); NVML unavailable ([2] above)");
  EXPECT_EQ(c.header().front(), "causes shared by several rows below (they say \"([N] above)\"):");
  EXPECT_EQ(c.header()[2], "  [2] NVML unavailable: " + kNvml);
}

TEST(SharedCauses, ShortOrSingleCausesStayInTheirRows) {
  EXPECT_TRUE(
      find_shared_causes({"timed out", "timed out", "timed out"}).empty());  // shorter than a line's worth
  EXPECT_TRUE(find_shared_causes({kCuda}).empty());                          // one row: nothing to share
  // Two rows are often one failure said twice (a metric's row and its check's): said in place.
  EXPECT_TRUE(find_shared_causes({"m: " + kCuda, "check: " + kCuda}).empty());
  EXPECT_TRUE(find_shared_causes({}).empty());
  // Rows that share only a common tail ("No such file or directory") do not get a header
  // line for it: it is shorter than kMinSharedCauseLength.
  EXPECT_TRUE(find_shared_causes({"a: /x: No such file or directory", "b: /y: No such file or directory",
                                  "c: /z: No such file or directory"})
                  .empty());
}

TEST(SharedCauses, ALongerCauseWinsOverItsCommonTail) {
  // Three rows share the full NVML text, a fourth only its strerror tail: the full text saves
  // more, so it is the cause; the fourth keeps its words.
  const std::string tail_only = "storage: cannot open /etc/gpuqual/site/site.yaml: No such file or directory";
  const SharedCauses c = find_shared_causes({"a: " + kNvml, "b: " + kNvml, "c: " + kNvml, tail_only});
  ASSERT_THAT(c.causes(), ElementsAre(kNvml));
  EXPECT_EQ(c.refer(tail_only), tail_only);
}

TEST(SharedCauses, ProgressLinesReferToWhatAnEarlierLineSaid) {
  const std::vector<std::string> said{"GPUs unavailable: CUDA runtime: x; NVML: " + kNvml};
  EXPECT_EQ(refer_to_earlier("NVML unavailable: " + kNvml, said),
            "NVML unavailable: libnvidia-ml.so.1 not loadable (above)");
  EXPECT_EQ(refer_to_earlier(kCuda, said), kCuda);  // not said yet: in full
  EXPECT_EQ(refer_to_earlier(kCuda, {kCuda}), "CUDA runtime cannot use a GPU (above)");
}

TEST(SharedCauses, LabelIsTheFirstClause) {
  EXPECT_EQ(cause_label(kCuda), "CUDA runtime cannot use a GPU");
  EXPECT_EQ(cause_label(kNvml), "libnvidia-ml.so.1 not loadable");
  EXPECT_EQ(cause_label("a cause without a clause break that goes on for a long while"),
            "a cause without a clause break that goe\u2026");
}

}  // namespace
}  // namespace gpuqual
